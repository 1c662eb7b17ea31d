import Benchmark
let benchmarks: @Sendable () -> Void = {
    Benchmark("placeholder") { _ in }
}
