import CalendarReader
import Foundation
import Model
import NIOHTTP1

/// Fetches one calendar's feed: over HTTP with a conditional GET (`If-None-Match`,
/// `If-Modified-Since`; a 304 keeps the copy) and the calendar's Basic or Bearer credentials,
/// through the shared upstream client (circuit, `Retry-After`, `/v1/sources` per calendar);
/// or from a local file, re-read only when its modification time changes. At most
/// `limits.maximumBytes` are read (a larger body is refused as it arrives); the bytes become
/// an `ICSCalendar` once per change, read on `ICSWorkers` within `limits` (a reading a limit
/// cut short is done again at the next check, even when the bytes are the same).
struct ICSFeedFetcher: Sendable {
    let calendar: ICSSettings.Calendar
    let context: OperationContext
    let timeout: TimeInterval
    let limits: ICSLimits
    let workers: ICSWorkers

    var maximumBytes: Int { limits.maximumBytes }

    var backend: String { ICSSettings.backend }

    func fetch(
        _ source: ICSSettings.Calendar.Source, previous: ICSFeedCopy?, ifNoneMatch: String?, ifModifiedSince: String?,
        now: Date
    ) async throws -> ICSFeedCopy {
        switch source {
        case .http(let url):
            return try await fetch(
                url, previous: previous, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, now: now)
        case .file(let path):
            return try await read(path, previous: previous, now: now)
        }
    }

    private func fetch(
        _ url: URL, previous: ICSFeedCopy?, ifNoneMatch: String?, ifModifiedSince: String?, now: Date
    ) async throws -> ICSFeedCopy {
        var headers = [("Accept", "text/calendar, */*;q=0.5")]
        if let ifNoneMatch { headers.append(("If-None-Match", ifNoneMatch)) }
        if let ifModifiedSince { headers.append(("If-Modified-Since", ifModifiedSince)) }
        if let token = calendar.token {
            headers.append(("Authorization", "Bearer \(token.reveal())"))
        } else if let username = calendar.username, let password = calendar.password {
            let pair = Data("\(username):\(password.reveal())".utf8).base64EncodedString()
            headers.append(("Authorization", "Basic \(pair)"))
        }
        let response = try await context.http.send(
            .GET, url: url.absoluteString, headers: headers, timeout: timeout,
            source: UpstreamSource(profile: context.profileName, backend: backend, scope: calendar.name),
            maximumBytes: maximumBytes)
        if response.isNotModified, var copy = previous {
            copy.checkedAt = now
            return copy
        }
        guard response.isSuccess else {
            var error = UpstreamHTTP.error(for: response, backend: backend)
            error.message =
                "\(calendar.name): "
                + (response.status == 401 || response.status == 403
                    ? "the calendar refused the credentials (\(response.status))"
                    : response.status == 404 ? "the calendar's address is not found (404)" : error.message)
            throw error
        }
        return try await copy(
            of: Array(response.body), previous: previous, now: now,
            etag: response.headers.first(name: "ETag"), lastModified: response.headers.first(name: "Last-Modified"),
            fileModified: nil)
    }

    private func read(_ path: String, previous: ICSFeedCopy?, now: Date) async throws -> ICSFeedCopy {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw BackendError(.unreachable, backend: backend, message: "\(calendar.name): the file cannot be read")
        }
        let modified = attributes[.modificationDate] as? Date
        if var copy = previous, let modified, copy.fileModified == modified {
            copy.checkedAt = now
            return copy
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumBytes else {
            throw BackendError(
                .badResponse, backend: backend,
                message: "\(calendar.name): the file has \(size) bytes; at most \(maximumBytes) are read")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BackendError(.unreachable, backend: backend, message: "\(calendar.name): the file cannot be read")
        }
        return try await copy(
            of: Array(data), previous: previous, now: now, etag: nil, lastModified: nil, fileModified: modified)
    }

    private func copy(
        of bytes: [UInt8], previous: ICSFeedCopy?, now: Date, etag: String?, lastModified: String?,
        fileModified: Date?
    ) async throws -> ICSFeedCopy {
        var hasher = Hasher()
        hasher.combine(bytes)
        let digest = hasher.finalize()
        if var copy = previous, copy.digest == digest, copy.byteCount == bytes.count, copy.isComplete {
            copy.checkedAt = now
            copy.etag = etag
            copy.lastModified = lastModified
            copy.fileModified = fileModified
            return copy
        }
        let household = context.timeZone
        let limits = self.limits
        let calendar = try await workers.run(maximumSteps: limits.maximumSteps, maximumDuration: limits.maximumDuration)
        {
            budget in
            Result { () throws(ICSReadError) -> ICSCalendar in
                try ICSCalendar(bytes: bytes, household: household, limits: limits, budget: budget)
            }
        }
        return ICSFeedCopy(
            calendar: calendar, byteCount: bytes.count, etag: etag, lastModified: lastModified,
            fileModified: fileModified, checkedAt: now, changedAt: now, digest: digest)
    }
}
