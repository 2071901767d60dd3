#if canImport(Glibc)
import Glibc
#endif
import App

// `tombola calc …`, `tombola verify FILE` and `tombola import FILE` are command-line faces of the engines;
// anything else starts the server.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "calc":
    exit(CalcCommand.run(Array(arguments.dropFirst())))
case "verify":
    exit(VerifyCommand.run(Array(arguments.dropFirst())))
case "import":
    exit(ImportCommand.run(Array(arguments.dropFirst())))
default:
    exit(ServerCommand.run(arguments))
}
