//! The `retro` binary: the command line (`retro::main`) over the built-in games.

fn main() {
    retro::main::<retro::Builtin>()
}
