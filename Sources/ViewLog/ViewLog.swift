// The library a user imports: the engine's layers (README, "Architecture") re-exported as one module, so that
// `import ViewLog` gives the whole public API and `@_spi(Engine) import ViewLog` the engine's SPI, as before the split.
@_exported @_spi(Engine) @_spi(Replication) @_spi(Testing) import ViewLogModel
@_exported @_spi(Engine) @_spi(Replication) @_spi(Testing) import ViewLogQuery
@_exported @_spi(Engine) @_spi(Replication) @_spi(Testing) import ViewLogStore
@_exported @_spi(Engine) @_spi(Replication) @_spi(Testing) import ViewLogViews
