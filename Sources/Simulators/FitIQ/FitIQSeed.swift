import Foundation
import Model

/// The seeded household, relative to the seed day in the household's time zone. Ids are derived
/// from fixed strings (users by email, foods by a key, the rest by seed day), so a restart gives the
/// same data.
///
/// The first configured user (Anna by default) gets the full history: meals for the six days before
/// the seed day (breakfast, lunch, snack, dinner) and, on the seed day, breakfast, lunch and an
/// afternoon snack but no dinner yet, and a mid-morning snack logged in words (a meal log); workouts over the last week; fourteen nights of sleep up to
/// the night ending on the seed day's morning. Every further user gets one breakfast on the seed day.
enum FitIQSeed {
    struct Data {
        var users: [FitIQUser]
        var foods: [FitIQFood]
        var foodLogs: [FitIQFoodLog]
        var workouts: [FitIQWorkout]
        var sleepSessions: [FitIQSleepSession]
        var mealLogs: [FitIQMealLog] = []
    }

    /// The meal the first user logged in words on the seed day (as the FitIQ app does), already
    /// parsed: a mid-morning snack.
    static let seededMeal = (time: (10, 30), meal: "snack", text: "a cappuccino and a stroopwafel")

    struct FoodSpec {
        let key: String
        let name: String
        var brand: String? = nil
        var barcode: String? = nil
        let calories: Int
        let protein: Double
        let carbs: Double
        let fat: Double
        let fiber: Double?
        let sugar: Double?
        let sodium: Double?
        let servingSize: Double
        let servingUnit: String
        /// Owned by the first user (a custom food) instead of the global catalog.
        var custom = false
    }

    /// The food catalog; `key` is only used to derive ids.
    static let foodSpecs: [FoodSpec] = [
        FoodSpec(
            key: "oatmeal", name: "Oatmeal with semi-skimmed milk", calories: 290, protein: 11, carbs: 45, fat: 7,
            fiber: 5, sugar: 12, sodium: 110, servingSize: 250, servingUnit: "g"),
        FoodSpec(
            key: "coffee", name: "Coffee with milk", calories: 35, protein: 2, carbs: 3, fat: 1.5, fiber: 0, sugar: 3,
            sodium: 30, servingSize: 200, servingUnit: "ml"),
        FoodSpec(
            key: "banana", name: "Banana", calories: 105, protein: 1.3, carbs: 27, fat: 0.4, fiber: 3.1, sugar: 14.4,
            sodium: 1, servingSize: 118, servingUnit: "g"),
        FoodSpec(
            key: "cheese_sandwich", name: "Whole wheat bread with Gouda", calories: 330, protein: 17, carbs: 30,
            fat: 15, fiber: 5, sugar: 3, sodium: 620, servingSize: 2, servingUnit: "slice"),
        FoodSpec(
            key: "tomato_soup", name: "Tomato soup", calories: 120, protein: 3.5, carbs: 16, fat: 4.5, fiber: 2,
            sugar: 9, sodium: 780, servingSize: 250, servingUnit: "ml"),
        FoodSpec(
            key: "apple", name: "Apple", calories: 95, protein: 0.5, carbs: 25, fat: 0.3, fiber: 4.4, sugar: 19,
            sodium: 2, servingSize: 182, servingUnit: "g"),
        FoodSpec(
            key: "stroopwafel", name: "Stroopwafel", brand: "Daelmans", barcode: "8710000123456", calories: 140,
            protein: 1, carbs: 20, fat: 6, fiber: 0.4, sugar: 11, sodium: 60, servingSize: 1, servingUnit: "piece"),
        FoodSpec(
            key: "greek_yogurt", name: "Greek yogurt with honey", calories: 180, protein: 10, carbs: 20, fat: 6,
            fiber: 0, sugar: 18, sodium: 60, servingSize: 150, servingUnit: "g"),
        FoodSpec(
            key: "almonds", name: "Almonds", calories: 175, protein: 6.3, carbs: 6, fat: 15, fiber: 3.5, sugar: 1.2,
            sodium: 0, servingSize: 30, servingUnit: "g"),
        FoodSpec(
            key: "chicken_rice", name: "Chicken stir-fry with rice", calories: 620, protein: 38, carbs: 72, fat: 17,
            fiber: 4, sugar: 8, sodium: 890, servingSize: 1, servingUnit: "plate"),
        FoodSpec(
            key: "pasta", name: "Pasta bolognese", calories: 680, protein: 32, carbs: 85, fat: 21, fiber: 6, sugar: 12,
            sodium: 950, servingSize: 1, servingUnit: "plate"),
        FoodSpec(
            key: "salmon", name: "Salmon with potatoes and green beans", calories: 590, protein: 36, carbs: 48, fat: 26,
            fiber: 7, sugar: 4, sodium: 420, servingSize: 1, servingUnit: "plate"),
        FoodSpec(
            key: "stamppot", name: "Kale stamppot with smoked sausage", calories: 720, protein: 28, carbs: 60, fat: 40,
            fiber: 9, sugar: 5, sodium: 1450, servingSize: 1, servingUnit: "plate"),
        FoodSpec(
            key: "muesli", name: "Muesli with yogurt", calories: 340, protein: 13, carbs: 50, fat: 9, fiber: 6,
            sugar: 16, sodium: 90, servingSize: 1, servingUnit: "bowl"),
        FoodSpec(
            key: "overnight_oats", name: "Overnight oats with berries", calories: 380, protein: 14, carbs: 52, fat: 12,
            fiber: 7, sugar: nil, sodium: nil, servingSize: 1, servingUnit: "jar", custom: true),
    ]

    static func foodID(_ key: String) -> String {
        SeedRandom.uuid(seed: "fitiq|food|\(key)")
    }

    static func userID(email: String) -> String {
        SeedRandom.uuid(seed: "fitiq|user|\(email.lowercased())")
    }

    /// One logged item: day offset from the seed day, local time, meal, food key, servings.
    struct LogSpec {
        let day: Int
        let time: (Int, Int)
        let meal: String
        let food: String
        var servings: Double = 1
        var notes: String? = nil
    }

    /// The first user's meals.
    static var logSpecs: [LogSpec] {
        var specs: [LogSpec] = []
        let dinners = ["stamppot", "salmon", "pasta", "chicken_rice", "salmon", "pasta"]
        let dinnerServings: [Double] = [1, 1, 1.25, 1, 1, 0.75]
        for back in stride(from: 6, through: 1, by: -1) {
            let day = -back
            let i = back - 1
            // Breakfast.
            if back == 2 {
                specs.append(LogSpec(day: day, time: (7, 30), meal: "breakfast", food: "overnight_oats"))
            } else if back % 2 == 0 {
                specs.append(LogSpec(day: day, time: (7, 40), meal: "breakfast", food: "muesli"))
            } else {
                specs.append(LogSpec(day: day, time: (7, 45), meal: "breakfast", food: "oatmeal"))
            }
            specs.append(LogSpec(day: day, time: (7, 50), meal: "breakfast", food: "coffee"))
            // Lunch.
            specs.append(LogSpec(day: day, time: (12, 30), meal: "lunch", food: "cheese_sandwich"))
            specs.append(
                LogSpec(day: day, time: (12, 35), meal: "lunch", food: back % 3 == 0 ? "tomato_soup" : "apple"))
            // Snack.
            let snack = ["stroopwafel", "almonds", "greek_yogurt"][i % 3]
            specs.append(
                LogSpec(day: day, time: (15, 30), meal: "snack", food: snack, servings: snack == "almonds" ? 0.5 : 1))
            // Dinner.
            specs.append(
                LogSpec(
                    day: day, time: (18, 30), meal: "dinner", food: dinners[i], servings: dinnerServings[i],
                    notes: dinners[i] == "stamppot" ? "Family recipe" : nil
                )
            )
        }
        // The seed day: breakfast, lunch and an afternoon snack; dinner is not logged yet.
        specs += [
            LogSpec(day: 0, time: (7, 45), meal: "breakfast", food: "oatmeal"),
            LogSpec(day: 0, time: (7, 45), meal: "breakfast", food: "banana"),
            LogSpec(day: 0, time: (7, 50), meal: "breakfast", food: "coffee"),
            LogSpec(day: 0, time: (12, 30), meal: "lunch", food: "cheese_sandwich"),
            LogSpec(day: 0, time: (12, 30), meal: "lunch", food: "tomato_soup", notes: "Office canteen"),
            LogSpec(day: 0, time: (15, 30), meal: "snack", food: "greek_yogurt"),
        ]
        return specs
    }

    struct WorkoutSpec {
        let day: Int
        let start: (Int, Int)
        let minutes: Int
        let type: String
        let title: String?
        let calories: Int?
        let distance: Double?
        let intensity: Int?
        var notes: String? = nil
    }

    static let workoutSpecs: [WorkoutSpec] = [
        WorkoutSpec(
            day: -6, start: (7, 0), minutes: 42, type: "running", title: "Morning run", calories: 410, distance: 6800,
            intensity: 6),
        WorkoutSpec(
            day: -5, start: (18, 30), minutes: 55, type: "strength_training", title: "Upper body", calories: 320,
            distance: nil, intensity: 7),
        WorkoutSpec(
            day: -3, start: (8, 10), minutes: 25, type: "cycling", title: "Commute ride", calories: 190, distance: 8200,
            intensity: 4),
        WorkoutSpec(
            day: -2, start: (7, 0), minutes: 35, type: "running", title: "Intervals", calories: 390, distance: 5900.5,
            intensity: 8, notes: "6x400m"),
        WorkoutSpec(
            day: -1, start: (20, 0), minutes: 45, type: "yoga", title: nil, calories: 150, distance: nil, intensity: 3),
        WorkoutSpec(
            day: 0, start: (12, 55), minutes: 25, type: "walking", title: "Lunch walk", calories: 110, distance: 2300,
            intensity: 2),
    ]

    /// Minutes after 22:30 (bed) and after 06:30 (wake), and awake/deep/REM minutes, for the night
    /// ending `index` days before the seed day (0 = last night).
    static let bedOffsets = [10, 25, 5, 40, 15, 55, 20, 0, 30, 45, 12, 35, 8, 18]
    static let wakeOffsets = [15, 20, 10, 35, 0, 75, 25, 5, 15, 40, 20, 10, 30, 12]
    static let awakeMinutes = [18, 25, 12, 30, 20, 15, 22, 35, 14, 19, 27, 16, 21, 24]
    static let deepMinutes = [72, 65, 80, 58, 70, 85, 62, 55, 78, 68, 74, 60, 66, 71]
    static let remMinutes = [95, 88, 102, 80, 92, 110, 85, 79, 99, 90, 96, 84, 91, 98]

    static func build(seedDay: String, timeZone: TimeZone, users specs: [FitIQSimulator.User]) -> Data {
        guard let calendar = SeedCalendar(seedDay: seedDay, timeZone: timeZone) else {
            return Data(users: [], foods: [], foodLogs: [], workouts: [], sleepSessions: [])
        }
        let seedDays = calendar.seedDays
        // A local wall time on seedDay + dayOffset as a UTC instant (microseconds).
        let local = calendar.utcMicros
        let minute = 60 * Civil.microsPerSecond

        // Users: created on fixed dates, long before any seed day.
        let users: [FitIQUser] = specs.enumerated().map { index, spec in
            FitIQUser(
                id: userID(email: spec.email),
                email: spec.email,
                password: spec.password,
                name: spec.name,
                dailyCalorieGoal: spec.dailyCalorieGoal,
                dateOfBirth: nil,
                createdAt: Civil.micros(
                    year: 2025, month: 2, day: 3 + index, hour: 19, minute: 12, second: 44,
                    micro: 318_207 + index * 1111)
            )
        }
        let owner = users.first?.id

        // Foods.
        var foods: [FitIQFood] = []
        for (index, spec) in foodSpecs.enumerated() {
            if spec.custom && owner == nil { continue }
            let created =
                Civil.micros(year: 2025, month: 3, day: 14, hour: 9, minute: 26, second: 53) + Int64(index) * 97
                * Civil.microsPerSecond
                + Int64(index * 37_411 % 1_000_000)
            foods.append(
                FitIQFood(
                    id: foodID(spec.key),
                    userID: spec.custom ? owner : nil,
                    name: spec.name,
                    brand: spec.brand,
                    barcode: spec.barcode,
                    calories: spec.calories,
                    proteinG: spec.protein,
                    carbsG: spec.carbs,
                    fatG: spec.fat,
                    fiberG: spec.fiber,
                    sugarG: spec.sugar,
                    sodiumMg: spec.sodium,
                    servingSize: spec.servingSize,
                    servingUnit: spec.servingUnit,
                    createdAt: created,
                    updatedAt: created
                )
            )
        }
        func source(_ key: String) -> String {
            if let spec = foodSpecs.first(where: { $0.key == key }) {
                if spec.custom { return "custom" }
                if spec.barcode != nil { return "barcode" }
            }
            return "database"
        }

        // Food logs.
        var rng = SeedRandom(seed: "fitiq|\(seedDay)|food-logs")
        var logs: [FitIQFoodLog] = []
        func addLog(user: String, _ spec: LogSpec) {
            let logged = local(spec.day, spec.time)
            let created = logged + Int64(2 + logs.count % 7) * minute + rng.micros()
            logs.append(
                FitIQFoodLog(
                    id: rng.uuid(), userID: user, foodID: foodID(spec.food), foodSource: source(spec.food),
                    mealType: spec.meal,
                    servings: spec.servings, loggedAt: logged, notes: spec.notes, createdAt: created, updatedAt: created
                )
            )
        }
        if let owner {
            for spec in logSpecs { addLog(user: owner, spec) }
        }
        for user in users.dropFirst() {
            addLog(user: user.id, LogSpec(day: 0, time: (8, 5), meal: "breakfast", food: "muesli"))
        }

        // Workouts.
        var workoutRng = SeedRandom(seed: "fitiq|\(seedDay)|workouts")
        var workouts: [FitIQWorkout] = []
        if let owner {
            for spec in workoutSpecs {
                let start = local(spec.day, spec.start)
                let end = start + Int64(spec.minutes) * minute
                let created = end + 6 * minute + workoutRng.micros()
                workouts.append(
                    FitIQWorkout(
                        id: workoutRng.uuid(), userID: owner, activityType: spec.type, title: spec.title,
                        notes: spec.notes,
                        startedAt: start, endedAt: end, durationMinutes: spec.minutes, caloriesBurned: spec.calories,
                        distanceMeters: spec.distance, intensity: spec.intensity, createdAt: created, updatedAt: created
                    )
                )
            }
        }
        for user in users.dropFirst() {
            let start = local(-1, (19, 0))
            let end = start + 40 * minute
            let created = end + 9 * minute + workoutRng.micros()
            workouts.append(
                FitIQWorkout(
                    id: workoutRng.uuid(), userID: user.id, activityType: "swimming", title: "Laps", notes: nil,
                    startedAt: start,
                    endedAt: end, durationMinutes: 40, caloriesBurned: 380, distanceMeters: 1500, intensity: 6,
                    createdAt: created,
                    updatedAt: created
                )
            )
        }

        // Sleep: the night ending on seed day - index, from 22:30+bed (the evening before) to 06:30+wake.
        var sleepRng = SeedRandom(seed: "fitiq|\(seedDay)|sleep")
        var sessions: [FitIQSleepSession] = []
        if let owner {
            for index in stride(from: bedOffsets.count - 1, through: 0, by: -1) {
                let start = local(-index - 1, (22, 30)) + Int64(bedOffsets[index]) * minute
                let end = local(-index, (6, 30)) + Int64(wakeOffsets[index]) * minute
                let inBed = Int((end - start) / minute)
                let awake = awakeMinutes[index]
                let deep = deepMinutes[index]
                let rem = remMinutes[index]
                let total = inBed - awake
                let core = total - deep - rem
                let created = end + 14 * minute + sleepRng.micros()
                let date = LocalDate(dayNumber: seedDays - index).description.replacingOccurrences(of: "-", with: "")
                sessions.append(
                    FitIQSleepSession(
                        id: sleepRng.uuid(), userID: owner, startTime: start, endTime: end, timeInBedMinutes: inBed,
                        totalSleepMinutes: total,
                        sleepEfficiency: FitIQSleepSession.efficiency(total: total, inBed: inBed),
                        awakeMinutes: awake, remMinutes: rem, coreMinutes: core, deepMinutes: deep, source: "healthkit",
                        sourceID: "HK-SLEEP-\(date)", notes: index == 5 ? "Late night, slept in" : nil,
                        createdAt: created,
                        updatedAt: created
                    )
                )
            }
        }

        // A meal logged in words, parsed four seconds later.
        var mealLogs: [FitIQMealLog] = []
        if let owner {
            var mealRng = SeedRandom(seed: "fitiq|\(seedDay)|meal-logs")
            let logged = local(0, seededMeal.time)
            var meal = FitIQMealLog(
                id: mealRng.uuid(), userID: owner, rawInput: seededMeal.text, mealType: seededMeal.meal,
                status: .processing, loggedAt: logged, processingStartedAt: logged + Civil.microsPerSecond,
                completesAt: logged + 4 * Civil.microsPerSecond, createdAt: logged, updatedAt: logged)
            meal.settle(now: logged + 4 * Civil.microsPerSecond, ids: &mealRng)
            mealLogs.append(meal)
        }

        return Data(
            users: users, foods: foods, foodLogs: logs, workouts: workouts, sleepSessions: sessions, mealLogs: mealLogs)
    }
}
