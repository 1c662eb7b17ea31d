/// The seed of this process's in-memory hash tables over ids and keys (``ObjectIDIndex``, the view's row index,
/// an append's object table): drawn at random once per process, so that whoever writes the ids cannot choose a
/// set of them that collides in every process and turns lookups linear.
enum HashSeed {
    static let process = UInt64.random(in: .min ... .max)
}
