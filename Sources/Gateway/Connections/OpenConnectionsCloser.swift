import ServiceLifecycle

/// Closes the server's open connections when the server is cancelled rather than shut down
/// gracefully (a service group whose graceful shutdown ran out of time, a test's gateway
/// ending). A connection between requests has no task (`RequestDispatchHandler`), so nothing
/// else would end it: its client could hold it open until the idle limit. A graceful
/// shutdown needs none of this: Hummingbird's quiescing closes each connection once its answer
/// is written.
struct OpenConnectionsCloser: Service {
    let budget: ConnectionBudget

    func run() async {
        await withTaskCancellationHandler {
            try? await gracefulShutdown()
        } onCancel: {
            budget.closeAll()
        }
    }
}
