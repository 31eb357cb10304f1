import Backends
import Foundation
import Model
import Testing

@Suite("Config loading")
struct ConfigLoaderTests {
    /// Writes `text` as a config file in a fresh folder and loads it.
    func load(_ text: String, environment: [String: String] = [:]) throws -> DaygateConfig {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("daygate.yaml").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try ConfigLoader.load(path: file, environment: environment, backends: BackendCatalog.settings)
    }

    func problem(_ text: String, environment: [String: String] = [:]) -> YAMLSourceError? {
        do {
            _ = try load(text, environment: environment)
            return nil
        } catch let error as YAMLSourceError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    let minimal = """
        profiles:
          default:
            eightalls:
              base_url: http://127.0.0.1:9101/api
        """

    @Test func defaultsApply() throws {
        let config = try load(minimal)
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 8787))
        #expect(config.timezone == TimeZone.current.identifier)
        #expect(config.cache.maxSize.bytes == 100 * 1_048_576)
        #expect(config.profiles["default"]?.eightalls?.endpoint.timeout.seconds == 5)
        #expect(config.stateDir.hasSuffix("/state"))
        #expect(config.stateDir.hasPrefix("/"))
    }

    @Test func fullConfigDecodes() throws {
        let config = try load(
            """
            listen: "[::1]:9000"
            state_dir: /var/lib/daygate
            timezone: Europe/Amsterdam
            cache:
              max_size: 20MB
              memory_size: 4MB
              ttl:
                eightalls.events: 30s
              stale_while_revalidate: 2m
              stale_if_error: 1d
            profiles:
              default:
                eightalls:
                  base_url: http://127.0.0.1:9101/api/
                  timeout: 1500ms
            """)
        #expect(config.listen == ListenAddress(host: "::1", port: 9000))
        #expect(config.listen.isLoopback)
        #expect(config.stateDir == "/var/lib/daygate")
        #expect(config.cache.maxSize.bytes == 20 * 1_048_576)
        #expect(config.cache.ttl["eightalls.events"]?.seconds == 30)
        #expect(config.cache.staleWhileRevalidate?.seconds == 120)
        #expect(config.cache.staleIfError.seconds == 86_400)
        #expect(config.profiles["default"]?.eightalls?.endpoint.baseURL == "http://127.0.0.1:9101/api")
        #expect(config.profiles["default"]?.eightalls?.endpoint.timeout.seconds == 1.5)
    }

    @Test func environmentAndFileSubstitution() throws {
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-secret-\(UUID().uuidString)")
        try "http://127.0.0.1:9999/api\n".write(to: secretFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let config = try load(
            """
            timezone: ${TZ_NAME}
            profiles:
              default:
                eightalls:
                  base_url: ${file:\(secretFile.path)}
            """, environment: ["TZ_NAME": "Europe/Amsterdam"])
        #expect(config.timezone == "Europe/Amsterdam")
        #expect(config.profiles["default"]?.eightalls?.endpoint.baseURL == "http://127.0.0.1:9999/api")
    }

    @Test func unknownKeyIsNamedWithItsLine() throws {
        let error = try #require(
            problem(
                """
                listen: 127.0.0.1:8787
                profiles:
                  default:
                    eightalls:
                      base_url: http://127.0.0.1:9101/api
                      timout: 5s
                """))
        #expect(error.line == 6)
        #expect(error.keyPath == "profiles.default.eightalls.timout")
        #expect(error.reason.hasPrefix("unknown key"))
        #expect(error.description.contains("daygate.yaml:6: profiles.default.eightalls.timout: unknown key"))
    }

    @Test func clientsMapKeysToProfiles() throws {
        let config = try load(
            minimal + """

                  ben:
                    eightalls:
                      base_url: http://127.0.0.1:9111/api
                clients:
                  - name: kitchen
                    key: ${KITCHEN_KEY}
                  - name: ben-phone
                    key: ben-0123456789abcdef
                    profile: ben
                cors:
                  origins: [https://ha.example.org:8123]
                allowed_hosts: [daygate.lan]
                """, environment: ["KITCHEN_KEY": "kitchen-0123456789abcdef"])
        #expect(config.clients.map(\.profile) == ["default", "ben"])
        #expect(config.clients[0].key == "kitchen-0123456789abcdef")
        #expect(config.cors.origins == ["https://ha.example.org:8123"])
        #expect(config.allowedHosts == ["daygate.lan"])
        #expect(config.secrets.isSuperset(of: ["kitchen-0123456789abcdef", "ben-0123456789abcdef"]))
    }

    @Test func badClientsAreNamedWithTheirLine() throws {
        let short = try #require(problem(minimal + "\nclients:\n  - name: a\n    key: short\n"))
        #expect(short.keyPath == "clients[0].key")
        #expect(short.line == 7)
        #expect(short.reason.contains("at least 16"))
        let unknown = try #require(
            problem(minimal + "\nclients:\n  - name: a\n    key: 0123456789abcdef0\n    profile: nobody\n"))
        #expect(unknown.keyPath == "clients[0].profile")
        #expect(unknown.reason.contains("no profile \"nobody\""))
        let twice = try #require(
            problem(
                minimal
                    + "\nclients:\n  - name: a\n    key: 0123456789abcdef0\n  - name: b\n    key: 0123456789abcdef0\n"))
        #expect(twice.keyPath == "clients[1].key")
        let origin = try #require(problem(minimal + "\ncors:\n  origins: [https://ha.example.org/]\n"))
        #expect(origin.keyPath == "cors.origins")
    }

    @Test func unknownTopLevelKey() throws {
        let error = try #require(problem("colour: blue\n" + minimal))
        #expect(error.keyPath == "colour")
        #expect(error.line == 1)
    }

    @Test func missingRequiredValue() throws {
        let error = try #require(
            problem(
                """
                profiles:
                  default:
                    eightalls:
                      timeout: 2s
                """))
        #expect(error.keyPath == "profiles.default.eightalls.base_url")
        #expect(error.reason == "missing required key")
        #expect(error.line == 4)
    }

    @Test func missingProfiles() throws {
        let error = try #require(problem("listen: 127.0.0.1:8787\n"))
        #expect(error.keyPath == "profiles")
        #expect(error.reason == "missing required key")
    }

    @Test func badValues() throws {
        let listen = try #require(problem("listen: everywhere\n" + minimal))
        #expect(listen.keyPath == "listen")
        #expect(listen.reason.contains("HOST:PORT"))
        #expect(listen.line == 1)

        let zone = try #require(problem("timezone: Mars/Olympus\n" + minimal))
        #expect(zone.keyPath == "timezone")
        #expect(zone.reason.contains("unknown IANA timezone"))

        let url = try #require(
            problem(
                """
                profiles:
                  default:
                    eightalls:
                      base_url: ftp://example
                """))
        #expect(url.keyPath == "profiles.default.eightalls.base_url")
        #expect(url.reason.contains("http://"))
        #expect(url.line == 4)

        let duration = try #require(
            problem(
                """
                cache:
                  stale_if_error: soon
                """ + "\n" + minimal))
        #expect(duration.keyPath == "cache.stale_if_error")
        #expect(duration.reason.contains("duration"))

        let size = try #require(problem("cache:\n  max_size: -3\n" + minimal))
        #expect(size.keyPath == "cache.max_size")
    }

    @Test func unsetEnvironmentVariable() throws {
        let error = try #require(
            problem(
                """
                profiles:
                  default:
                    eightalls:
                      base_url: ${EIGHTALLS_URL}
                """))
        #expect(error.reason == "environment variable EIGHTALLS_URL is not set")
        #expect(error.keyPath == "profiles.default.eightalls.base_url")
        #expect(error.line == 4)
    }

    @Test func unreadableFileReference() throws {
        let error = try #require(
            problem(
                """
                profiles:
                  default:
                    eightalls:
                      base_url: ${file:/nonexistent/daygate-secret}
                """))
        #expect(error.reason.contains("cannot read file /nonexistent/daygate-secret"))
    }

    @Test func invalidYAML() throws {
        let error = try #require(problem("profiles: [unclosed\n"))
        #expect(error.reason.hasPrefix("not valid YAML"))
        #expect(error.line != nil)
    }

    @Test func severalProfilesNeedADefault() throws {
        let error = try #require(
            problem(
                """
                profiles:
                  anna: {}
                  ben: {}
                """))
        #expect(error.keyPath == "profiles")
        #expect(error.reason.contains("default"))
    }

    @Test func missingFile() {
        #expect(throws: YAMLSourceError.self) {
            try ConfigLoader.load(path: "/nonexistent/daygate.yaml", backends: BackendCatalog.settings)
        }
    }

    @Test func limitsHaveHomeServerDefaultsAndCanBeSet() throws {
        #expect(try load(minimal).limits == LimitsSettings())
        #expect(LimitsSettings().maxConnections == 1024)
        #expect(LimitsSettings().headerTimeout == .seconds(10))
        let config = try load(
            minimal + """

                limits:
                  max_connections: 200
                  header_timeout: 2s
                  body_timeout: 5s
                  idle_timeout: 2m
                  streams_per_client: 3
                  upstream_connections_per_host: 16
                  upstream_idle_timeout: 10m
                  upstream_ca_file: /etc/daygate/home-ca.pem
                """)
        #expect(
            config.limits
                == LimitsSettings(
                    maxConnections: 200, headerTimeout: .seconds(2), bodyTimeout: .seconds(5),
                    idleTimeout: .seconds(120),
                    streamsPerClient: 3, upstreamConnectionsPerHost: 16, upstreamIdleTimeout: .seconds(600),
                    upstreamCAFile: "/etc/daygate/home-ca.pem"
                ))
        #expect(LimitsSettings().upstreamIdleTimeout == .seconds(300))
        #expect(LimitsSettings().upstreamCAFile == nil)
    }

    @Test func badLimitsAreNamedWithTheirLine() throws {
        let small = try #require(problem(minimal + "\nlimits:\n  max_connections: 4\n"))
        #expect(small.keyPath == "limits.max_connections")
        #expect(small.line == 6)
        #expect(small.reason.contains("16"))
        let zero = try #require(problem(minimal + "\nlimits:\n  header_timeout: 0s\n"))
        #expect(zero.keyPath == "limits.header_timeout")
        let unknown = try #require(problem(minimal + "\nlimits:\n  keepalive: 5s\n"))
        #expect(unknown.keyPath == "limits.keepalive")
        #expect(unknown.reason.contains("idle_timeout"))
    }

    /// The fuzz corpus seeds its config and route targets with copies of the repository's own
    /// files; a copy that drifted would fuzz a config nobody ships. Each copy is its original,
    /// byte for byte.
    @Test func theFuzzCorpusCopiesAreTheRepositorysFiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let corpus = root.appendingPathComponent("Tests/Fuzz/corpus")
        var pairs = [("config/example.yaml", "daygate.example.yaml")]
        let routes = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("routes").path)
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent("routes").path)
        where routes.contains(name) {
            pairs.append(("routes/" + name, "routes/" + name))
        }
        #expect(pairs.count >= 4, "\(pairs)")
        for (copy, original) in pairs {
            let copied = try Data(contentsOf: corpus.appendingPathComponent(copy))
            let source = try Data(contentsOf: root.appendingPathComponent(original))
            #expect(copied == source, "Tests/Fuzz/corpus/\(copy) differs from \(original): copy it again")
        }
    }

    /// The example in the repository is a config that loads (its secrets given).
    @Test func theExampleConfigLoads() throws {
        let config = try ExampleConfig.load()
        #expect(config.limits == LimitsSettings())
        #expect(config.clients.first { $0.name == "anna-phone" }?.feedKey == "anna-phone-feed-key-0123456789")
    }
}
