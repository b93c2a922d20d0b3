//! The skills extension (`io.modelcontextprotocol/skills`, `shared/spec/extensions/skills`):
//! a directory of skills served from memory in both eras (`skills/list`, `skills/get`,
//! `resources/directory/read`, `resources/read` of `skill://` files, `SKILL.md` in
//! `resources/list`), and the client's checks of everything it reads (size, digest,
//! frontmatter, unlisted files), nothing fetched ahead of need.

use crate::common;

use common::*;
use hypermcp::catalogue::skills::{SkillCatalog, VerificationFailure, SKILLS_EXTENSION};
use hypermcp::transport::skills_dir::read_skills_dir;
use hypermcp::{ClientMode, ClientOptions, Error, Server, SkillResources};
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    workspace_dir().join("examples/skills")
}

fn server() -> Server {
    Server::new("skills", "1.0.0").skills_dir(fixture())
}

#[tokio::test]
async fn skills_are_listed_got_and_read_in_both_eras() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let s = server();
            s.registry().set_page_size(2);
            let t = connect_tapped(&s, ClientOptions::default().mode(mode)).await;
            let c = &t.client;
            // Declared with directoryRead, and resources with it.
            let caps = &c.server().capabilities;
            assert_eq!(caps.extensions.as_ref().unwrap()[SKILLS_EXTENSION], json!({"directoryRead": true}));
            assert!(caps.resources.is_some(), "{mode:?}: resources are declared with skills");

            // Every skill, nested ones included, in URI order over pages of two.
            let skills = c.list_skills().await.unwrap();
            let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
            assert_eq!(
                uris,
                [
                    "skill://acme/billing/refunds/SKILL.md",
                    "skill://git-workflow/SKILL.md",
                    "skill://git-workflow/commit-message/SKILL.md",
                    "skill://pdf-processing/SKILL.md"
                ],
                "{mode:?}"
            );
            assert!(t.tap.with_method("resources/read").is_empty(), "{mode:?}: listing fetches nothing");
            let pdf = &skills[3];
            assert_eq!(pdf.name(), "pdf-processing");
            assert_eq!(pdf.frontmatter["metadata"], json!({"version": "2.1.0", "tags": ["pdf", "forms"]}));
            let SkillResources::Files(files) = &pdf.resources else { panic!("listed files") };
            assert_eq!(files.len(), 6, "SKILL.md and its five files: {files:?}");
            let md = std::fs::read(fixture().join("pdf-processing/SKILL.md")).unwrap();
            let listed = files.iter().find(|f| f.uri == pdf.uri).unwrap();
            assert_eq!(listed.size, md.len() as u64);
            assert_eq!(listed.digest, hypermcp::catalogue::skills::digest(&md));
            // A parent lists its nested skill's files too.
            let git = &skills[1];
            let SkillResources::Files(git_files) = &git.resources else { panic!() };
            assert!(git_files.iter().any(|f| f.uri == "skill://git-workflow/commit-message/SKILL.md"));

            // The wire: caching hints on every result, resultType at 2026-07-28.
            let list = t.tap.with_method("skills/list");
            let reply = t.tap.response_to(hypermcp_dir(), &list[0].json["id"]).unwrap();
            let r = &reply.json["result"];
            assert!(r["ttlMs"].is_u64() && r["cacheScope"].is_string(), "{mode:?}: {r}");
            assert!(r["nextCursor"].is_string());
            if mode == ClientMode::Modern {
                assert_eq!(r["resultType"], "complete");
            }

            // skills/get, and an unknown skill.
            let got = c.get_skill("skill://pdf-processing/SKILL.md").await.unwrap();
            assert_eq!(&got, pdf);
            let e = c.get_skill("skill://nope/SKILL.md").await.unwrap_err();
            assert_eq!(e.code(), -32602, "{mode:?}: {e}");

            // Loading verifies SKILL.md; files are read on demand, text and binary.
            let text = c.load_skill(pdf).await.unwrap();
            assert_eq!(text.as_bytes(), md.as_slice());
            let forms = c.read_skill_file(pdf, "references/FORMS.md").await.unwrap();
            assert!(String::from_utf8(forms).unwrap().starts_with("# Filling PDF forms"));
            let png = c.read_skill_file(pdf, "skill://pdf-processing/assets/logo.png").await.unwrap();
            assert_eq!(png, std::fs::read(fixture().join("pdf-processing/assets/logo.png")).unwrap());
            // A file the entry does not list is refused before anything is read.
            let reads = t.tap.with_method("resources/read").len();
            let e = c.read_skill_file(pdf, "references/SECRET.md").await.unwrap_err();
            let Error::SkillVerification(v) = e else { panic!("{e}") };
            assert_eq!(v.reason, VerificationFailure::Unlisted);
            assert_eq!(t.tap.with_method("resources/read").len(), reads);

            // resources/list carries each SKILL.md with its frontmatter's name and description.
            let resources = c.list_resources().await.unwrap();
            let entry = resources.iter().find(|r| r.uri == pdf.uri).expect("SKILL.md is listed");
            assert_eq!(entry.name, "pdf-processing");
            assert_eq!(entry.mime_type.as_deref(), Some("text/markdown"));
            assert_eq!(entry.description.as_deref(), Some(pdf.description()));
            assert_eq!(entry.size, Some(md.len() as u64));
            assert!(!resources.iter().any(|r| r.uri.ends_with("FORMS.md")), "supporting files are not listed");

            // Directories: children with subdirectories as inode/directory, paged.
            let children = c.read_directory("skill://pdf-processing/templates").await.unwrap();
            let kinds: Vec<(&str, Option<&str>)> =
                children.iter().map(|r| (r.uri.as_str(), r.mime_type.as_deref())).collect();
            assert_eq!(
                kinds,
                [
                    ("skill://pdf-processing/templates/invoice.md", Some("text/markdown")),
                    ("skill://pdf-processing/templates/regional", Some("inode/directory"))
                ]
            );
            let root = c.read_directory("skill://pdf-processing").await.unwrap();
            assert_eq!(root.len(), 5, "SKILL.md and four subdirectories: {root:?}");
            for not_dir in ["skill://pdf-processing/SKILL.md", "skill://nowhere"] {
                let e = c.read_directory(not_dir).await.unwrap_err();
                assert_eq!(e.code(), -32602, "{not_dir}: {e}");
            }
            assert!(t.assert_all_valid() > 0, "{mode:?}");
            let _ = t.client.close().await;
        }
    })
    .await;
}

fn hypermcp_dir() -> Dir {
    Dir::ToServer
}

#[tokio::test]
async fn a_file_changed_after_listing_is_refused() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let dir = tempdir(&format!("tamper-{mode:?}"));
            copy_tree(&fixture(), &dir);
            let s = Server::new("skills", "1.0.0").skills_dir(&dir);
            let t = connect_tapped(&s, ClientOptions::default().mode(mode)).await;
            let c = &t.client;
            let skills = c.list_skills().await.unwrap();
            let pdf = skills.iter().find(|s| s.name() == "pdf-processing").unwrap().clone();
            // Same size, other bytes: the digest catches it.
            let forms = dir.join("pdf-processing/references/FORMS.md");
            let mut bytes = std::fs::read(&forms).unwrap();
            bytes[2] = b'X';
            std::fs::write(&forms, &bytes).unwrap();
            s.set_skills(Some(read_skills_dir(&dir).unwrap()));
            let e = c.read_skill_file(&pdf, "references/FORMS.md").await.unwrap_err();
            let Error::SkillVerification(v) = e else { panic!("{e}") };
            assert_eq!(
                (v.reason, v.uri.as_str()),
                (VerificationFailure::Digest, "skill://pdf-processing/references/FORMS.md")
            );
            // Longer: the size catches it.
            bytes.extend_from_slice(b"more\n");
            std::fs::write(&forms, &bytes).unwrap();
            s.set_skills(Some(read_skills_dir(&dir).unwrap()));
            let Error::SkillVerification(v) = c.read_skill_file(&pdf, "references/FORMS.md").await.unwrap_err() else {
                panic!()
            };
            assert_eq!(v.reason, VerificationFailure::Size);
            // The frontmatter of SKILL.md changed, with a matching digest in a fresh entry of
            // the old frontmatter: the frontmatter check catches it.
            let md_path = dir.join("pdf-processing/SKILL.md");
            let md = std::fs::read_to_string(&md_path).unwrap().replace("Extract text", "Exfiltrate text");
            std::fs::write(&md_path, &md).unwrap();
            s.set_skills(Some(read_skills_dir(&dir).unwrap()));
            let mut stale = c.get_skill(&pdf.uri).await.unwrap();
            assert_ne!(stale.resources, pdf.resources, "the refreshed entry has the new digests");
            stale.frontmatter = pdf.frontmatter.clone();
            let Error::SkillVerification(v) = c.load_skill(&stale).await.unwrap_err() else { panic!() };
            assert_eq!(v.reason, VerificationFailure::Frontmatter, "{}", v.message);
            // The refreshed entry loads.
            let fresh = c.get_skill(&pdf.uri).await.unwrap();
            assert!(c.load_skill(&fresh).await.unwrap().contains("Exfiltrate"));
            let _ = t.client.close().await;
            let _ = std::fs::remove_dir_all(&dir);
        }
    })
    .await;
}

#[tokio::test]
async fn reloading_tells_clients_what_changed() {
    bounded(async {
        let dir = tempdir("reload");
        copy_tree(&fixture(), &dir);
        let s = Server::new("skills", "1.0.0").skills_dir(&dir);
        let (options, mut rx) = notification_channel(ClientOptions::default().mode(ClientMode::Legacy));
        let t = connect_tapped(&s, options).await;
        t.client.subscribe_resource("skill://git-workflow/SKILL.md").await.unwrap();
        std::fs::write(dir.join("git-workflow/SKILL.md"), "---\nname: git-workflow\ndescription: Changed.\n---\n")
            .unwrap();
        s.set_skills(Some(read_skills_dir(&dir).unwrap()));
        next_notification(&mut rx, "notifications/resources/list_changed").await;
        let updated = next_notification(&mut rx, "notifications/resources/updated").await;
        assert_eq!(updated["uri"], "skill://git-workflow/SKILL.md");
        let _ = t.client.close().await;
        let _ = std::fs::remove_dir_all(&dir);
    })
    .await;
}

#[test]
fn bad_skill_directories_are_refused_with_the_rule_broken() {
    let dir = tempdir("bad");
    std::fs::create_dir_all(dir.join("Bad_Name")).unwrap();
    std::fs::write(dir.join("Bad_Name/SKILL.md"), "---\nname: Bad_Name\ndescription: x\n---\n").unwrap();
    let e = read_skills_dir(&dir).unwrap_err();
    assert!(e.contains("lowercase letters"), "{e}");
    std::fs::remove_dir_all(dir.join("Bad_Name")).unwrap();
    std::fs::create_dir_all(dir.join("pdf")).unwrap();
    std::fs::write(dir.join("pdf/SKILL.md"), "---\nname: other\ndescription: x\n---\n").unwrap();
    let e = read_skills_dir(&dir).unwrap_err();
    assert!(e.contains("its directory is \"pdf\""), "{e}");
    std::fs::write(dir.join("pdf/SKILL.md"), "---\nname: pdf\ndescription: x\n---\n").unwrap();
    // Hidden files and files outside every skill are left out; a link out of the root is refused.
    std::fs::write(dir.join("README.md"), "not a skill").unwrap();
    std::fs::write(dir.join("pdf/.DS_Store"), "junk").unwrap();
    let c = read_skills_dir(&dir).unwrap();
    assert_eq!(c.len(), 1);
    assert!(c.file("skill://pdf/.DS_Store").is_none() && c.file("skill://README.md").is_none());
    std::os::unix::fs::symlink("/etc/passwd", dir.join("pdf/passwd")).unwrap();
    let e = read_skills_dir(&dir).unwrap_err();
    assert!(e.contains("a link out of the skills directory"), "{e}");
    assert!(read_skills_dir(dir.join("missing")).unwrap_err().contains("missing"));
    let _ = std::fs::remove_dir_all(&dir);
    // Skills made in code.
    let c = SkillCatalog::from_files([(
        "hello/SKILL.md".to_string(),
        b"---\nname: hello\ndescription: Say hi\n---\nHi\n".to_vec(),
    )])
    .unwrap();
    assert_eq!(c.entry(c.get("skill://hello/SKILL.md").unwrap())["frontmatter"]["name"], Value::from("hello"));
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hypermcp-skills-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
