//! The `hypermcp` command line (feature `cli`, on by default): `cargo install hypermcp`.
//! The same command ships with the Python and npm packages; see [`hypermcp::cli`].

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(hypermcp::cli::main(args, hypermcp::cli::Host::default()));
}
