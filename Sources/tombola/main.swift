#if canImport(Glibc)
import Glibc
#endif
import App

// `tombola calc …` and `tombola verify FILE` are command-line faces of the engines,
// `tombola host-link CODE` issues a new host key; anything else starts the server.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "calc":
    exit(CalcCommand.run(Array(arguments.dropFirst())))
case "verify":
    exit(VerifyCommand.run(Array(arguments.dropFirst())))
case "host-link":
    exit(HostLinkCommand.run(Array(arguments.dropFirst())))
default:
    exit(ServerCommand.run(arguments))
}
