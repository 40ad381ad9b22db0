//! Command-line mistakes as a shell sees them: exit status 2 and a message naming the problem.

use std::process::Command;

#[test]
fn mistakes_exit_2_naming_the_problem() {
    let bench = env!("CARGO_BIN_EXE_flashattn-bench");
    let report = env!("CARGO_BIN_EXE_flashattn-report");
    for (bin, args, message) in [
        (
            bench,
            &["run", "--iters", "abc"][..],
            "invalid value 'abc' for '--iters <ITERS>'",
        ),
        (
            bench,
            &["tune", "--iters", "0"],
            "invalid value '0' for '--iters <ITERS>'",
        ),
        (
            report,
            &["compare", "--bogus"],
            "unexpected argument '--bogus' found",
        ),
        (
            report,
            &["compare", "a", "b", "--alpha", "2"],
            "invalid value '2' for '--alpha",
        ),
    ] {
        let out = Command::new(bin).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
