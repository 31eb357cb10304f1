/// `Model` is the gateway's data model as the other modules use it: the plain values and
/// parsers of `ModelCore` (which build without any package, so the fuzzers' smoke build is
/// quick), and on top of them what needs a package — the OpenAPI schemas of the values
/// (OpenAPIKit), the config files (Yams) and credential fingerprints (swift-crypto).
@_exported import ModelCore
