#if canImport(Glibc)
import Glibc
#endif
import App
import Crypto
import Embedded

// `tombola calc …`, `tombola verify FILE` and `tombola import FILE` are command-line faces of the
// engines; `tombola backup`/`restore` copy the database; `tombola host-link CODE` / `tombola admin-link`
// issue a new host / admin key; `tombola generate-history` lays down stored draws for the start-up benchmark;
// `tombola rotate-signing-key` hands the record-signing key over to a new one (docs/FAIRNESS.md §17);
// `tombola beacon [ROUND]` fetches a drand round as a beacon-sealed round does;
// `tombola --version` says which build this is; anything else starts the server.
CryptoLibrary.initializeWithoutExitHandler() // before any thread or library touches libcrypto
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--version":
    print(BuildInfo.summary + "sha256 \(BinaryIdentity.sha256)\n", terminator: "")
    exit(0)
case "calc":
    exit(CalcCommand.run(Array(arguments.dropFirst())))
case "verify":
    exit(VerifyCommand.run(Array(arguments.dropFirst())))
case "backup":
    exit(BackupCommand.run(Array(arguments.dropFirst()), restore: false))
case "restore":
    exit(BackupCommand.run(Array(arguments.dropFirst()), restore: true))
case "import":
    exit(ImportCommand.run(Array(arguments.dropFirst())))
case "host-link":
    exit(HostLinkCommand.run(Array(arguments.dropFirst())))
case "admin-link":
    exit(AdminLinkCommand.run(Array(arguments.dropFirst())))
case "beacon":
    exit(BeaconCommand.run(Array(arguments.dropFirst())))
case "rotate-signing-key":
    exit(RotateSigningKeyCommand.run(Array(arguments.dropFirst())))
case "generate-history":
    exit(GenerateHistoryCommand.run(Array(arguments.dropFirst())))
default:
    exit(ServerCommand.run(arguments))
}
