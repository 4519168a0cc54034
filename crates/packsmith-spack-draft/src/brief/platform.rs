//! Whether a CMake condition holds only on another platform than Linux
//! x86-64, so that what it declares (an option, a cache variable) is no
//! variant of the recipe.

/// A condition that holds only on another platform than Linux x86-64:
/// `APPLE`, `WIN32`, `MSVC`, … as its first word, or a test of
/// `CMAKE_SYSTEM_PROCESSOR`/`CMAKE_SYSTEM_NAME` against another processor
/// or system; never a negated one.
pub(super) fn other_platform(cond: &str) -> bool {
    const PLATFORMS: &[&str] = &[
        "APPLE", "WIN32", "MSVC", "IOS", "ANDROID", "MINGW", "CYGWIN",
    ];
    if cond
        .split_whitespace()
        .next()
        .is_some_and(|w| PLATFORMS.contains(&w.trim_matches(|c| c == '(' || c == ')')))
    {
        return true;
    }
    // `CMAKE_SYSTEM_PROCESSOR MATCHES "arm"`, `CMAKE_SYSTEM_NAME STREQUAL
    // "Darwin"`: a declaration for another processor or system (a negated
    // one holds here, so it is not).
    let lower = cond.to_ascii_lowercase();
    let about = |var: &str, values: &[&str]| {
        lower.starts_with(var) && values.iter().any(|v| lower.contains(v))
    };
    about(
        "cmake_system_processor",
        &["arm", "aarch64", "ppc", "powerpc", "riscv", "s390"],
    ) || about(
        "cmake_system_name",
        &["darwin", "windows", "freebsd", "ios", "android"],
    ) || other_processor(&lower)
}

/// A project's own processor variable (`PNG_TARGET_ARCHITECTURE MATCHES
/// "^(powerpc|ppc64)"`, `${TARGET_ARCH} STREQUAL "arm"`) tested against
/// other processors only; a pattern that also names x86 holds here.
fn other_processor(lower: &str) -> bool {
    const OTHERS: &[&str] = &[
        "arm",
        "aarch",
        "ppc",
        "powerpc",
        "riscv",
        "s390",
        "mips",
        "loongarch",
        "sparc",
    ];
    const HERE: &[&str] = &["x86", "amd64", "x64", "i386", "i686", "86)", "86|", "intel"];
    let mut words = lower.split_whitespace();
    let (Some(var), Some(op), Some(pattern)) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    let var = var.trim_start_matches("${").trim_end_matches('}');
    let processor_var = var.contains("arch") || var.contains("processor") || var.contains("cpu");
    processor_var
        && matches!(op, "matches" | "strequal")
        && OTHERS.iter().any(|o| pattern.contains(o))
        && !HERE.iter().any(|h| pattern.contains(h))
}

#[cfg(test)]
mod tests {
    use super::other_platform;

    #[test]
    fn another_system_or_processor() {
        for cond in [
            "APPLE",
            "(WIN32)",
            "CMAKE_SYSTEM_PROCESSOR MATCHES \"aarch64\"",
            "CMAKE_SYSTEM_NAME STREQUAL \"Darwin\"",
            "PNG_TARGET_ARCHITECTURE MATCHES \"^(powerpc|ppc64)\"",
            "PNG_TARGET_ARCHITECTURE MATCHES \"^(loongarch)\"",
            "${TARGET_ARCH} STREQUAL \"riscv64\"",
        ] {
            assert!(other_platform(cond), "{cond}");
        }
    }

    #[test]
    fn what_holds_here() {
        for cond in [
            "UNIX",
            "NOT APPLE",
            "NOT CMAKE_SYSTEM_PROCESSOR MATCHES \"arm\"",
            "PNG_TARGET_ARCHITECTURE MATCHES \"^(i[3-6]86|x86|amd64)\"",
            "CPU_ARCH MATCHES \"x86_64|aarch64\"",
            "PNG_HARDWARE_OPTIMIZATIONS",
            "FOO_SEARCH_PATH MATCHES \"/opt\"",
        ] {
            assert!(!other_platform(cond), "{cond}");
        }
    }
}
