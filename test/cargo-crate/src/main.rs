// `cargo run`: sums with std threads, prints the args, one env variable and
// exits with the code given as its first argument (default 0).
use std::thread;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let handles: Vec<_> = (0..4u64).map(|i| thread::spawn(move || (i * 100..(i + 1) * 100).sum::<u64>())).collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    println!("sum {total}");
    println!("args {:?}", &args[1..]);
    println!("WTP_GREETING {:?}", std::env::var("WTP_GREETING").ok());
    let code = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    std::process::exit(code);
}
