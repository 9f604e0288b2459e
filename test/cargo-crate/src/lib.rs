// The library's unit tests, run by `cargo test` on the runner: std threads,
// a file in a preopened directory, the environment.

pub fn parallel_sum(lanes: u64, per_lane: u64) -> u64 {
    let handles: Vec<_> = (0..lanes)
        .map(|lane| std::thread::spawn(move || (lane * per_lane..(lane + 1) * per_lane).sum::<u64>()))
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn threads_sum() {
        let n = 8 * 1000;
        assert_eq!(parallel_sum(8, 1000), n * (n - 1) / 2);
    }

    #[test]
    fn threads_share_a_mutex() {
        let counter = Arc::new(Mutex::new(0));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let counter = Arc::clone(&counter);
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        *counter.lock().unwrap() += 1;
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(*counter.lock().unwrap(), 4000);
    }

    #[test]
    fn reads_a_file_of_the_preopened_directory() {
        let text = std::fs::read_to_string("data/input.txt").expect("data/input.txt under --dir .");
        assert_eq!(text, "hello from the host\n");
    }

    #[test]
    fn sees_the_environment_it_was_given() {
        assert_eq!(std::env::var("WTP_GREETING").as_deref(), Ok("hello"));
    }

    #[test]
    fn prints_when_not_captured() {
        println!("printed by prints_when_not_captured");
    }
}
