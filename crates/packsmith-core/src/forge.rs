//! Git forges: which hosts are GitHub, GitLab or Gitea, how their repository
//! URLs and git remotes read as host, owner and repository, and where a tag's
//! or a commit's source archive lies. The one place these URL layouts live;
//! the analyzer (archive URL of the latest tag, homepage) and the Nix backend
//! (fetcher choice, prefetch URLs) both read it.

use serde::{Deserialize, Serialize};

/// Hosts whose URLs read `host/owner/repo/…` but whose archive layout this
/// table does not know (nixpkgs' `fetchFromBitbucket` aside, no fetcher).
const OWNER_REPO_ONLY_HOSTS: &[&str] = &["bitbucket.org"];

/// True when `host` (any case, `www.` ignored) puts a repository at
/// `host/OWNER/REPO`: every forge of this table, and Bitbucket.
pub fn names_owner_repo(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    Forge::from_host(host).is_some() || OWNER_REPO_ONLY_HOSTS.contains(&host)
}

/// A git forge whose archive URLs follow a known layout (and for which
/// nixpkgs has a dedicated fetcher).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Forge {
    GitHub,
    /// gitlab.com or a self-hosted GitLab.
    GitLab {
        host: String,
    },
    /// Codeberg, gitea.com or another Gitea/Forgejo host.
    Gitea {
        host: String,
    },
}

/// Hosts that run GitLab without `gitlab.` in their name.
const GITLAB_HOSTS: &[&str] = &[
    "framagit.org",
    "invent.kde.org",
    "salsa.debian.org",
    "gitlab.gnome.org",
];

/// Hosts that run Gitea or Forgejo.
const GITEA_HOSTS: &[&str] = &[
    "codeberg.org",
    "gitea.com",
    "git.lix.systems",
    "notabug.org",
];

impl Forge {
    /// The forge behind `host` (any case), or None for a host with no known
    /// layout.
    pub fn from_host(host: &str) -> Option<Forge> {
        let host = host.to_ascii_lowercase();
        if host == "github.com" {
            Some(Forge::GitHub)
        } else if host == "gitlab.com"
            || host.starts_with("gitlab.")
            || GITLAB_HOSTS.contains(&host.as_str())
        {
            Some(Forge::GitLab { host })
        } else if GITEA_HOSTS.contains(&host.as_str()) {
            Some(Forge::Gitea { host })
        } else {
            None
        }
    }

    /// The host name, e.g. `github.com` or `codeberg.org`.
    pub fn host(&self) -> &str {
        match self {
            Forge::GitHub => "github.com",
            Forge::GitLab { host } | Forge::Gitea { host } => host,
        }
    }

    /// True for github.com and gitlab.com themselves, false for a
    /// self-hosted instance (Gitea has no main instance).
    pub fn is_main_instance(&self) -> bool {
        match self {
            Forge::GitHub => true,
            Forge::GitLab { host } => host == "gitlab.com",
            Forge::Gitea { .. } => false,
        }
    }

    /// The host when it must be named next to owner and repository (nixpkgs'
    /// `domain =`): None on github.com and gitlab.com.
    pub fn domain(&self) -> Option<&str> {
        (!self.is_main_instance()).then(|| self.host())
    }
}

/// One repository on a forge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForgeRepo {
    pub forge: Forge,
    /// Owner, or `group/subgroup` on GitLab.
    pub owner: String,
    pub repo: String,
}

/// The URL schemes a git remote is written with, before the host.
const REMOTE_PREFIXES: &[&str] = &["https://", "http://", "ssh://git@", "git://", "git@"];

impl ForgeRepo {
    /// The repository in a URL path on `forge`: `OWNER/REPO`, anything after
    /// it (`/tree/main`, GitLab's `/-/tags`) ignored, subgroups kept on
    /// GitLab, a `.git` suffix dropped. None when the path names no
    /// repository.
    pub fn from_path(forge: Forge, path: &str) -> Option<ForgeRepo> {
        let path = path.split(['?', '#']).next().unwrap_or("");
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        // GitLab puts `/-/` before tree/blob/tags pages; subgroups come before it.
        let repo_path: Vec<&str> = match forge {
            Forge::GitLab { .. } => segs.iter().take_while(|s| **s != "-").copied().collect(),
            _ => segs.iter().take(2).copied().collect(),
        };
        let (repo, owner) = repo_path.split_last()?;
        if owner.is_empty() {
            return None;
        }
        Some(ForgeRepo {
            forge,
            owner: owner.join("/"),
            repo: repo.trim_end_matches(".git").to_string(),
        })
    }

    /// Reads a git remote or repository URL: `https://HOST/OWNER/REPO(.git)`,
    /// `http://…`, `git@HOST:OWNER/REPO.git`, `ssh://git@HOST/…` or
    /// `git://HOST/…`. None for a local path or an unknown host.
    pub fn parse_remote(remote: &str) -> Option<ForgeRepo> {
        let remote = remote.trim();
        let rest = REMOTE_PREFIXES
            .iter()
            .find_map(|prefix| remote.strip_prefix(prefix))?;
        // `git@host:owner/repo` separates host and path with a colon.
        let (host, path) = if remote.starts_with("git@") {
            rest.split_once(':')?
        } else {
            rest.split_once('/')?
        };
        ForgeRepo::from_path(Forge::from_host(host)?, path)
    }

    /// `OWNER/REPO` (with GitLab subgroups).
    pub fn path(&self) -> String {
        format!("{}/{}", self.owner, self.repo)
    }

    /// The repository's web page.
    pub fn web_url(&self) -> String {
        format!("https://{}/{}", self.forge.host(), self.path())
    }

    /// The source archive (`.tar.gz`) of release tag `tag`.
    pub fn tag_archive_url(&self, tag: &str) -> String {
        match self.forge {
            // GitHub serves tags under `refs/tags/` so a branch of the same
            // name cannot shadow them.
            Forge::GitHub => format!("{}/archive/refs/tags/{tag}.tar.gz", self.web_url()),
            _ => self.commit_archive_url(tag),
        }
    }

    /// The source archive (`.tar.gz`) of commit `rev` (GitLab and Gitea
    /// take a tag there too).
    pub fn commit_archive_url(&self, rev: &str) -> String {
        let web = self.web_url();
        match self.forge {
            Forge::GitLab { .. } => format!("{web}/-/archive/{rev}/{}-{rev}.tar.gz", self.repo),
            Forge::GitHub | Forge::Gitea { .. } => format!("{web}/archive/{rev}.tar.gz"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(remote: &str) -> Option<(String, String, String)> {
        ForgeRepo::parse_remote(remote).map(|r| (r.forge.host().to_string(), r.owner, r.repo))
    }

    fn triple(host: &str, owner: &str, repo: &str) -> Option<(String, String, String)> {
        Some((host.into(), owner.into(), repo.into()))
    }

    #[test]
    fn hosts_name_their_forge() {
        assert_eq!(Forge::from_host("github.com"), Some(Forge::GitHub));
        assert!(names_owner_repo("www.GitHub.com"));
        assert!(names_owner_repo("bitbucket.org"));
        assert!(names_owner_repo("codeberg.org"));
        assert!(names_owner_repo("gitlab.inria.fr"));
        assert!(!names_owner_repo("download.savannah.gnu.org"));
        assert_eq!(Forge::from_host("GitHub.com"), Some(Forge::GitHub));
        assert_eq!(
            Forge::from_host("gitlab.kitware.com"),
            Some(Forge::GitLab {
                host: "gitlab.kitware.com".into()
            })
        );
        assert_eq!(
            Forge::from_host("salsa.debian.org"),
            Some(Forge::GitLab {
                host: "salsa.debian.org".into()
            })
        );
        assert_eq!(
            Forge::from_host("codeberg.org"),
            Some(Forge::Gitea {
                host: "codeberg.org".into()
            })
        );
        assert_eq!(Forge::from_host("example.org"), None);
        assert_eq!(Forge::from_host("bitbucket.org"), None);
    }

    #[test]
    fn only_self_hosted_instances_need_a_domain() {
        assert_eq!(Forge::GitHub.domain(), None);
        let gitlab = |h: &str| Forge::GitLab { host: h.into() };
        assert_eq!(gitlab("gitlab.com").domain(), None);
        assert_eq!(gitlab("gitlab.inria.fr").domain(), Some("gitlab.inria.fr"));
        let codeberg = Forge::Gitea {
            host: "codeberg.org".into(),
        };
        assert_eq!(codeberg.domain(), Some("codeberg.org"));
        assert!(!codeberg.is_main_instance());
    }

    #[test]
    fn remotes_in_every_spelling() {
        let zfp = triple("github.com", "LLNL", "zfp");
        for remote in [
            "https://github.com/LLNL/zfp",
            "https://github.com/LLNL/zfp.git",
            "https://github.com/LLNL/zfp/",
            "http://github.com/LLNL/zfp",
            "git@github.com:LLNL/zfp.git",
            "ssh://git@github.com/LLNL/zfp.git",
            "git://github.com/LLNL/zfp",
            "  https://github.com/LLNL/zfp/tree/develop\n",
        ] {
            assert_eq!(repo(remote), zfp, "{remote}");
        }
        assert_eq!(
            repo("git@gitlab.com:group/sub/proj.git"),
            triple("gitlab.com", "group/sub", "proj")
        );
        assert_eq!(
            repo("https://gitlab.gnome.org/World/sub/app/-/tree/main"),
            triple("gitlab.gnome.org", "World/sub", "app")
        );
        assert_eq!(
            repo("https://codeberg.org/ziglang/zig.git"),
            triple("codeberg.org", "ziglang", "zig")
        );
    }

    #[test]
    fn non_forge_remotes_are_none() {
        for remote in [
            "/local/mirror",
            "file:///srv/git/zfp",
            "https://github.com/LLNL",
            "https://github.com/",
            "https://git.example.org/foo.git",
            "git@example.org:o/r.git",
            "",
        ] {
            assert_eq!(repo(remote), None, "{remote}");
        }
    }

    #[test]
    fn archive_and_web_urls_per_forge() {
        let parse = |r: &str| ForgeRepo::parse_remote(r).unwrap_or_else(|| panic!("{r}"));
        let gh = parse("git@github.com:LLNL/zfp.git");
        assert_eq!(gh.web_url(), "https://github.com/LLNL/zfp");
        assert_eq!(
            gh.tag_archive_url("1.0.1"),
            "https://github.com/LLNL/zfp/archive/refs/tags/1.0.1.tar.gz"
        );
        assert_eq!(
            gh.commit_archive_url("abc123"),
            "https://github.com/LLNL/zfp/archive/abc123.tar.gz"
        );
        let gl = parse("https://gitlab.com/group/sub/proj");
        assert_eq!(gl.path(), "group/sub/proj");
        assert_eq!(
            gl.tag_archive_url("v2"),
            "https://gitlab.com/group/sub/proj/-/archive/v2/proj-v2.tar.gz"
        );
        let cb = parse("https://codeberg.org/u/proj");
        assert_eq!(
            cb.tag_archive_url("v2"),
            "https://codeberg.org/u/proj/archive/v2.tar.gz"
        );
    }

    #[test]
    fn forge_serializes_with_a_kind_tag() {
        let json = serde_json::to_string(&Forge::GitLab {
            host: "gitlab.com".into(),
        })
        .unwrap_or_default();
        assert_eq!(json, r#"{"kind":"git_lab","host":"gitlab.com"}"#);
    }
}
