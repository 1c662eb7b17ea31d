/// libFuzzer's driver, for a `main` of our own: SwiftPM links each executable target's entry point as
/// `<Module>_main` (so that executables can be tested), which hides libFuzzer's `main`; each target's
/// `<Module>_main` calls this with its callback instead.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with `callback` as `LLVMFuzzerTestOneInput`.
public func runFuzzer(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}
