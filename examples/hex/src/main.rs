//! retro's command line with Hex beside the built-in games.

fn main() {
    retro::main::<(retro::Builtin, hex::Hex)>()
}
