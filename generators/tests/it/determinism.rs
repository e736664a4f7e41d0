//! The same seed gives byte-identical tables and identical predicate lists; another seed gives
//! other bytes.

use std::collections::BTreeMap;
use std::path::Path;

use generators::catalog::{NAMES, named, named_with_seed};
use generators::predicates::{Pools, sample_predicates};
use generators::writer::write_table;

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn same_seed_same_bytes_and_predicates() {
    for name in NAMES {
        let spec = named(name).unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let ta = write_table(&spec, a.path()).unwrap();
        let tb = write_table(&spec, b.path()).unwrap();
        assert_eq!(
            tree(a.path()),
            tree(b.path()),
            "{name}: byte-identical tables"
        );
        let (pa, pb) = (Pools::from_table(&spec, &ta), Pools::from_table(&spec, &tb));
        let la: Vec<String> = sample_predicates(&pa, 3, 42, 50)
            .iter()
            .map(ToString::to_string)
            .collect();
        let lb: Vec<String> = sample_predicates(&pb, 3, 42, 50)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(la.len(), 50);
        assert_eq!(la, lb, "{name}: identical predicate lists");
        let other: Vec<String> = sample_predicates(&pa, 3, 43, 50)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_ne!(la, other, "{name}: another seed, other predicates");
    }
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_table(&named_with_seed("all-types", 1).unwrap(), a.path()).unwrap();
    write_table(&named_with_seed("all-types", 2).unwrap(), b.path()).unwrap();
    assert_ne!(tree(a.path()), tree(b.path()), "another seed, other bytes");
}

#[test]
fn a_written_table_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let spec = named("all-types").unwrap();
    write_table(&spec, dir.path()).unwrap();
    let err = write_table(&spec, dir.path()).unwrap_err();
    assert!(err.contains("already holds a Delta log"), "{err}");
}
