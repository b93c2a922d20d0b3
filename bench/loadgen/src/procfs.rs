//! Resident memory of processes, from `/proc` (Linux): what the load generators report of
//! the servers they measure.

use std::collections::HashMap;

/// Resident memory (VmRSS, KiB) of process `pid` and all its descendants, found by walking
/// the parent ids of `/proc/*/stat`; `None` if `pid` itself has no VmRSS (gone or a zombie).
pub fn tree_rss_kb(pid: u32) -> Option<u64> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(p) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
            if let Some(ppid) = std::fs::read_to_string(format!("/proc/{p}/stat")).ok().and_then(|s| stat_ppid(&s)) {
                children.entry(ppid).or_default().push(p);
            }
        }
    }
    let mut total = vm_rss_kb(pid)?;
    let mut stack: Vec<u32> = children.get(&pid).cloned().unwrap_or_default();
    let mut seen = std::collections::HashSet::from([pid]);
    while let Some(p) = stack.pop() {
        if !seen.insert(p) {
            continue;
        }
        total += vm_rss_kb(p).unwrap_or(0);
        stack.extend(children.get(&p).into_iter().flatten());
    }
    Some(total)
}

fn vm_rss_kb(pid: u32) -> Option<u64> {
    status_vm_rss(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// The parent id in the text of `/proc/PID/stat` (`pid (comm) state ppid ...`; the command
/// name may hold spaces and parentheses, so fields are counted after the last `)`).
fn stat_ppid(stat: &str) -> Option<u32> {
    let mut fields = stat[stat.rfind(')')? + 1..].split_ascii_whitespace();
    fields.next()?;
    fields.next()?.parse().ok()
}

/// The `VmRSS:` value in KiB of the text of `/proc/PID/status`.
fn status_vm_rss(status: &str) -> Option<u64> {
    let value = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    value.trim().strip_suffix("kB")?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_parsing() {
        assert_eq!(stat_ppid("1234 (sh) S 77 1234 1234 0 -1 4194560"), Some(77));
        assert_eq!(stat_ppid("1234 (a) b) (c) R 5 1 1"), Some(5));
        assert_eq!(stat_ppid("garbage"), None);
        assert_eq!(status_vm_rss("Name:\tx\nVmPeak:\t  9 kB\nVmRSS:\t    2048 kB\nThreads: 1\n"), Some(2048));
        assert_eq!(status_vm_rss("Name:\tzombie\nState:\tZ (zombie)\n"), None);
    }

    #[test]
    fn rss_of_a_process_tree() {
        let me = tree_rss_kb(std::process::id()).expect("this process has a VmRSS");
        assert!(me > 0);
        // A child's memory is added to its parent's.
        let mut child = std::process::Command::new("sleep").arg("5").spawn().expect("sleep runs");
        let with_child = (0..50).find_map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            tree_rss_kb(std::process::id()).filter(|&kb| kb > me)
        });
        let _ = child.kill();
        let _ = child.wait();
        assert!(with_child.is_some(), "the child's memory was not counted");
        assert_eq!(tree_rss_kb(u32::MAX), None);
    }
}
