//! retro's command line with Hex beside the built-in games.

fn main() {
    retro::cli::main::<(retro::Builtin, hex::Hex)>()
}
