import Foundation
import Model
import Synchronization

// MARK: - Rows

struct FitIQUser: Sendable, Equatable {
    var id: String
    var email: String
    var password: String
    var name: String
    /// `daily_calorie_goal` from the user's preferences; 0 = not set.
    var dailyCalorieGoal: Int
    var dateOfBirth: String?
    var createdAt: Int64
}

struct FitIQFood: Sendable, Equatable {
    var id: String
    /// nil for the global catalog, the owner for a user's custom food.
    var userID: String?
    var name: String
    var brand: String?
    var barcode: String?
    var calories: Int
    var proteinG: Double
    var carbsG: Double
    var fatG: Double
    var fiberG: Double?
    var sugarG: Double?
    var sodiumMg: Double?
    var servingSize: Double
    var servingUnit: String
    var createdAt: Int64
    var updatedAt: Int64

    /// swagger `FoodResponse`; nil pointers are left out (`omitempty`).
    var json: JSONValue {
        var o: JSONObject = ["id": .string(id)]
        if let userID { o.append("user_id", .string(userID)) }
        o.append("name", .string(name))
        if let brand { o.append("brand", .string(brand)) }
        if let barcode { o.append("barcode", .string(barcode)) }
        o.append("calories", .int(calories))
        o.append("protein_g", FitIQFormat.number(proteinG))
        o.append("carbs_g", FitIQFormat.number(carbsG))
        o.append("fat_g", FitIQFormat.number(fatG))
        if let fiberG { o.append("fiber_g", FitIQFormat.number(fiberG)) }
        if let sugarG { o.append("sugar_g", FitIQFormat.number(sugarG)) }
        if let sodiumMg { o.append("sodium_mg", FitIQFormat.number(sodiumMg)) }
        o.append("serving_size", FitIQFormat.number(servingSize))
        o.append("serving_unit", .string(servingUnit))
        o.append("created_at", .string(FitIQFormat.time(createdAt)))
        o.append("updated_at", .string(FitIQFormat.time(updatedAt)))
        return .object(o)
    }
}

/// A row one user owns and may delete (`FitIQBackend.deleteOwned`).
protocol FitIQOwnedRow {
    var id: String { get }
    var userID: String { get }
}

struct FitIQFoodLog: Sendable, Equatable, FitIQOwnedRow {
    var id: String
    var userID: String
    var foodID: String
    var foodSource: String
    var mealType: String
    var servings: Double
    var loggedAt: Int64
    var notes: String?
    var createdAt: Int64
    var updatedAt: Int64
    var sequence = 0

    /// swagger `FoodLogResponse`.
    var json: JSONValue {
        var o: JSONObject = [
            "id": .string(id),
            "user_id": .string(userID),
            "food_id": .string(foodID),
            "food_source": .string(foodSource),
            "meal_type": .string(mealType),
            "servings": FitIQFormat.number(servings),
            "logged_at": .string(FitIQFormat.time(loggedAt)),
        ]
        if let notes { o.append("notes", .string(notes)) }
        o.append("created_at", .string(FitIQFormat.time(createdAt)))
        o.append("updated_at", .string(FitIQFormat.time(updatedAt)))
        return .object(o)
    }
}

struct FitIQWorkout: Sendable, Equatable {
    var id: String
    var userID: String
    var activityType: String
    var title: String?
    var notes: String?
    var startedAt: Int64
    var endedAt: Int64?
    var durationMinutes: Int?
    var caloriesBurned: Int?
    var distanceMeters: Double?
    var intensity: Int?
    var createdAt: Int64
    var updatedAt: Int64
    var sequence = 0

    /// swagger `WorkoutResponse`.
    var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "user_id": .string(userID), "activity_type": .string(activityType)]
        if let title { o.append("title", .string(title)) }
        if let notes { o.append("notes", .string(notes)) }
        o.append("started_at", .string(FitIQFormat.time(startedAt)))
        if let endedAt { o.append("ended_at", .string(FitIQFormat.time(endedAt))) }
        if let durationMinutes { o.append("duration_minutes", .int(durationMinutes)) }
        if let caloriesBurned { o.append("calories_burned", .int(caloriesBurned)) }
        if let distanceMeters { o.append("distance_meters", FitIQFormat.number(distanceMeters)) }
        if let intensity { o.append("intensity", .int(intensity)) }
        o.append("created_at", .string(FitIQFormat.time(createdAt)))
        o.append("updated_at", .string(FitIQFormat.time(updatedAt)))
        return .object(o)
    }
}

struct FitIQSleepSession: Sendable, Equatable {
    var id: String
    var userID: String
    var startTime: Int64
    var endTime: Int64
    var timeInBedMinutes: Int
    var totalSleepMinutes: Int
    var sleepEfficiency: Double
    var awakeMinutes: Int
    var remMinutes: Int
    var coreMinutes: Int
    var deepMinutes: Int
    var source: String
    var sourceID: String?
    var notes: String?
    var createdAt: Int64
    var updatedAt: Int64
    var sequence = 0

    /// swagger `SleepSessionResponse`.
    var json: JSONValue {
        var o: JSONObject = [
            "id": .string(id),
            "user_id": .string(userID),
            "start_time": .string(FitIQFormat.time(startTime)),
            "end_time": .string(FitIQFormat.time(endTime)),
            "time_in_bed_minutes": .int(timeInBedMinutes),
            "total_sleep_minutes": .int(totalSleepMinutes),
            "sleep_efficiency_percentage": FitIQFormat.number(sleepEfficiency),
            "awake_minutes": .int(awakeMinutes),
            "rem_minutes": .int(remMinutes),
            "core_minutes": .int(coreMinutes),
            "deep_minutes": .int(deepMinutes),
            "source": .string(source),
        ]
        if let sourceID { o.append("source_id", .string(sourceID)) }
        if let notes { o.append("notes", .string(notes)) }
        o.append("created_at", .string(FitIQFormat.time(createdAt)))
        o.append("updated_at", .string(FitIQFormat.time(updatedAt)))
        return .object(o)
    }

    /// Efficiency as the server computes it: total sleep / time in bed × 100 (0 for an empty session).
    static func efficiency(total: Int, inBed: Int) -> Double {
        inBed > 0 ? Double(total) / Double(inBed) * 100 : 0
    }
}

// MARK: - Tokens

struct FitIQAccessToken: Sendable {
    var userID: String
    /// Unix seconds.
    var expiresAt: Double
}

struct FitIQRefreshToken: Sendable {
    enum State: Sendable {
        case active
        /// Exchanged once already (rotation).
        case used
        /// Killed because a used token of its family was presented again.
        case revoked
    }

    var userID: String
    /// Every token descending from one login shares a family.
    var family: Int
    var expiresAt: Double
    var state: State
}

enum FitIQRefreshOutcome: Sendable {
    case ok(access: String, refresh: String)
    case invalid
    case revoked
    case expired
}

// MARK: - State

struct FitIQState: Sendable {
    var users: [FitIQUser] = []
    var foods: [FitIQFood] = []
    var foodLogs: [FitIQFoodLog] = []
    var workouts: [FitIQWorkout] = []
    var sleepSessions: [FitIQSleepSession] = []
    var mealLogs: [FitIQMealLog] = []
    /// Ids of the items the simulated AI parses (deterministic per seed day).
    var mealItemIDs = SeedRandom(seed: "fitiq|meal-items")
    var accessTokens: [String: FitIQAccessToken] = [:]
    var refreshTokens: [String: FitIQRefreshToken] = [:]
    var nextFamily = 0
    var nextSequence = 0
    var logins = 0
    var refreshes = 0
    var rejectedRefreshes = 0
    var guideShape: Bool
    var accessTokenLifetime: Double
    var refreshTokenLifetime: Double
    /// Seconds a meal logged in words stays `processing` (`FitIQSimulator.Options`).
    var mealProcessingSeconds: Double
    /// Whether `end_date` / `to` of the day-range lists leave their own day out
    /// (`FitIQSimulator.Options.rangeEndExclusive`).
    var rangeEndExclusive: Bool

    mutating func sequence() -> Int {
        nextSequence += 1
        return nextSequence
    }

    func user(id: String) -> FitIQUser? { users.first { $0.id == id } }

    func user(email: String) -> FitIQUser? {
        let wanted = email.trimmingCharacters(in: .whitespaces).lowercased()
        return users.first { $0.email.lowercased() == wanted }
    }

    func food(id: String) -> FitIQFood? { foods.first { $0.id == id } }

    /// Whether a UTC `day` lies in the range `start...end` of a day-range list, the end day
    /// left out when ``rangeEndExclusive``.
    func dayInRange(_ day: Int, start: Int?, end: Int?) -> Bool {
        if let start, day < start { return false }
        if let end, rangeEndExclusive ? day >= end : day > end { return false }
        return true
    }

    /// Parses every meal whose processing time has come.
    mutating func settleMealLogs(now: Int64) {
        for index in mealLogs.indices where mealLogs[index].status == .processing {
            mealLogs[index].settle(now: now, ids: &mealItemIDs)
        }
    }

    // MARK: Auth

    mutating func issueTokens(for user: FitIQUser, family: Int, now: Double) -> (access: String, refresh: String) {
        let expires = now + accessTokenLifetime
        let access = FitIQTokens.accessToken(userID: user.id, email: user.email, issuedAt: now, expiresAt: expires)
        accessTokens[access] = FitIQAccessToken(userID: user.id, expiresAt: expires)
        let refresh = FitIQTokens.refreshToken()
        refreshTokens[refresh] = FitIQRefreshToken(
            userID: user.id, family: family, expiresAt: now + refreshTokenLifetime, state: .active)
        return (access, refresh)
    }

    /// A fresh token family for a correct email and password; nil otherwise.
    mutating func login(email: String, password: String, now: Double) -> (access: String, refresh: String)? {
        guard let user = user(email: email), user.password == password else { return nil }
        logins += 1
        nextFamily += 1
        return issueTokens(for: user, family: nextFamily, now: now)
    }

    /// Rotation: an active token is exchanged once for a new pair and marked used. Presenting a used
    /// (or revoked) token again is reuse: 401 and every still-active token of that family is revoked.
    mutating func refresh(_ token: String, now: Double) -> FitIQRefreshOutcome {
        guard let record = refreshTokens[token], let user = user(id: record.userID) else {
            rejectedRefreshes += 1
            return .invalid
        }
        switch record.state {
        case .used, .revoked:
            for (key, value) in refreshTokens where value.family == record.family && value.state == .active {
                refreshTokens[key]?.state = .revoked
            }
            rejectedRefreshes += 1
            return .revoked
        case .active:
            if now >= record.expiresAt {
                rejectedRefreshes += 1
                return .expired
            }
            refreshTokens[token]?.state = .used
            refreshes += 1
            let pair = issueTokens(for: user, family: record.family, now: now)
            return .ok(access: pair.access, refresh: pair.refresh)
        }
    }

    /// The user an unexpired access token belongs to.
    func authenticate(_ token: String, now: Double) -> String? {
        guard let record = accessTokens[token], now < record.expiresAt else { return nil }
        return record.userID
    }

    /// Makes every issued access token expired; returns how many were still valid.
    mutating func expireAccessTokens(now: Double) -> Int {
        var count = 0
        for (key, value) in accessTokens where value.expiresAt > now - 1 {
            if value.expiresAt > now { count += 1 }
            accessTokens[key]?.expiresAt = now - 1
        }
        return count
    }
}

// MARK: - Store

/// The simulator's in-memory database, safe to use from any task.
final class FitIQStore: Sendable {
    let seedDay: String
    let timeZone: TimeZone
    let apiKey: String
    let seedUsers: [FitIQSimulator.User]
    /// `FitIQSimulator.Options.clock`.
    let clock: @Sendable () -> Date
    private let state: Mutex<FitIQState>

    init(options: FitIQSimulator.Options) throws {
        guard Civil.parseDay(options.seedDay) != nil else { throw SimulatorError.invalidSeedDay(options.seedDay) }
        seedDay = options.seedDay
        timeZone = options.timeZone
        apiKey = options.apiKey
        seedUsers = options.users
        clock = options.clock
        state = Mutex(
            FitIQState(
                guideShape: options.guideShape,
                accessTokenLifetime: options.accessTokenLifetime,
                refreshTokenLifetime: options.refreshTokenLifetime,
                mealProcessingSeconds: options.mealProcessingSeconds,
                rangeEndExclusive: options.rangeEndExclusive
            )
        )
        reseed()
    }

    /// Drops every change, token and auth counter and loads the seeded data again (runtime
    /// options such as `guide_shape` stay).
    func reseed() {
        let seed = FitIQSeed.build(seedDay: seedDay, timeZone: timeZone, users: seedUsers)
        state.withLock { s in
            s.users = seed.users
            s.foods = seed.foods
            s.nextSequence = 0
            s.foodLogs = seed.foodLogs.map {
                var row = $0
                row.sequence = s.sequence()
                return row
            }
            s.workouts = seed.workouts.map {
                var row = $0
                row.sequence = s.sequence()
                return row
            }
            s.sleepSessions = seed.sleepSessions.map {
                var row = $0
                row.sequence = s.sequence()
                return row
            }
            s.mealLogs = seed.mealLogs.map {
                var row = $0
                row.sequence = s.sequence()
                return row
            }
            s.mealItemIDs = SeedRandom(seed: "fitiq|\(seedDay)|meal-items")
            s.accessTokens = [:]
            s.refreshTokens = [:]
            s.nextFamily = 0
            s.logins = 0
            s.refreshes = 0
            s.rejectedRefreshes = 0
        }
    }

    /// Runs `body` under the lock.
    func withState<R: Sendable>(_ body: (inout FitIQState) -> R) -> R {
        state.withLock { body(&$0) }
    }
}
