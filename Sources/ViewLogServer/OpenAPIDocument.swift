/// The OpenAPI 3 document of the server (`GET /openapi.json`): `openapi.json` beside this file, embedded in the
/// binary when it is built (SwiftPM's `embedInCode`, Package.swift says why). CI checks the running server against it
/// with schemathesis (`tools/serve-api-test`); `docs/serve.md` explains it in prose.
enum OpenAPIDocument {
    /// The file's bytes, served as they are (they end with a newline, as every document the server serves does).
    static let bytes: [UInt8] = PackageResources.openapi_json
}
