// swift-tools-version:6.0
import PackageDescription

// A keyboard backend written outside the package: it depends on KeyboardAdapter by path and builds
// on the backends' interface (`KeyboardBackendInterface`), the product a backend imports on purpose.
let package = Package(
    name: "OutsideBackend",
    dependencies: [.package(name: "KeyboardAdapter", path: "../..")],
    targets: [
        .executableTarget(
            name: "outsidebackend",
            dependencies: [
                .product(name: "KeyboardBackendInterface", package: "KeyboardAdapter"),
                .product(name: "KeyboardAdapterCore", package: "KeyboardAdapter"),
            ])
    ]
)
