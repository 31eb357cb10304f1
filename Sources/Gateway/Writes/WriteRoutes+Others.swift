import Hummingbird

extension WriteRoutes {
    /// Captures, food logs and volunteers (filled in as their backend writes land).
    func registerOthers(on router: Router<GatewayRequestContext>) {}
}
