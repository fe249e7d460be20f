//! The refusal rule (HIP-0300 §1.4): which op names the door withholds.
//!
//! An op name is read as a verb phrase: one or more verbs joined by `or` /
//! `and` (`create_or_update`), then the *object* words up to the first
//! preposition (`for`, `in`, `by`, ...). The object's *head nouns* are the
//! words that end it or stand before `and` / `or` (`repo_secret` → `secret`,
//! `token_usage` → `usage`). Plurals count as their singular.
//!
//! An op is withheld when
//! - a head noun names a bearer secret (`api_key`, `secret`, `token`,
//!   `password`, `credential`, ...), whatever the verb; or
//! - a verb is not a read verb and a head noun names an identity or
//!   authority object (`user`, `member`, `role`, `permission`, `policy`,
//!   `key`, `membership`, ...).
//!
//! So `get_api_key`, `rotate_secret`, `create_or_update_repo_secret`,
//! `update_user_role`, `delete_member` and `set_membership_for_user` are
//! withheld, while `get_role`, `get_token_usage` and `list_members` are
//! kept. Every list is configurable.

use crate::naming::{is_preposition, singular};

/// The refusal rule's vocabulary (HIP-0300 §1.4). Nouns are written in the
/// singular, as `_`-joined words; compound nouns (`api_key`) match when
/// their words stand together and the last is a head noun.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusalRule {
    /// Whether the rule applies at all (default true).
    pub enabled: bool,
    /// Nouns that name a bearer secret: withheld at any verb.
    pub secret_nouns: Vec<String>,
    /// Identity and authority objects: withheld when mutated.
    pub identity_nouns: Vec<String>,
    /// Verbs that only read; any other verb mutates.
    pub read_verbs: Vec<String>,
}

fn owned(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

impl Default for RefusalRule {
    fn default() -> Self {
        Self {
            enabled: true,
            secret_nouns: owned(&[
                "api_key",
                "access_key",
                "private_key",
                "secret_key",
                "secret",
                "token",
                "password",
                "passphrase",
                "credential",
            ]),
            identity_nouns: owned(&[
                "user",
                "member",
                "membership",
                "role",
                "permission",
                "policy",
                "key",
                "identity",
            ]),
            read_verbs: owned(&[
                "get", "list", "check", "search", "describe", "download", "fetch", "read", "find",
                "count", "compare", "preview", "show", "view", "query", "diff",
            ]),
        }
    }
}

/// Why an op is withheld.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its object is a bearer secret.
    Secret,
    /// It mutates an identity or authority object.
    Identity,
}

impl RefusalRule {
    /// A rule that withholds nothing.
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// Why `op_name` (`_`-joined lower-case words) is withheld, or `None`
    /// when it is offered.
    pub fn check(&self, op_name: &str) -> Option<Refusal> {
        if !self.enabled {
            return None;
        }
        let words: Vec<String> = op_name
            .split('_')
            .filter(|w| !w.is_empty())
            .map(singular)
            .collect();
        let (verbs, object) = split_phrase(&words);
        let heads = head_positions(object);
        let names = |nouns: &[String]| {
            heads.iter().any(|&i| {
                nouns.iter().any(|noun| {
                    let parts: Vec<String> = noun.split('_').map(singular).collect();
                    parts.len() <= i + 1 && object[i + 1 - parts.len()..=i] == parts[..]
                })
            })
        };
        if names(&self.secret_nouns) {
            return Some(Refusal::Secret);
        }
        let mutates = verbs
            .iter()
            .any(|v| !self.read_verbs.iter().any(|r| r == v));
        if mutates && names(&self.identity_nouns) {
            return Some(Refusal::Identity);
        }
        None
    }

    /// The rule in one line, for `_meta["hanzo.ai/refused"].rule`.
    pub fn summary(&self) -> String {
        if !self.enabled {
            return "no operation is withheld".into();
        }
        format!(
            "withheld: an op whose object names a bearer secret ({}) at any verb, or whose verb \
             is not a read ({}) and whose object is an identity or authority object ({})",
            self.secret_nouns.join(", "),
            self.read_verbs.join(", "),
            self.identity_nouns.join(", ")
        )
    }
}

/// The verbs (`create`, `or`, `update` → `create`, `update`) and the
/// object words up to the first preposition.
fn split_phrase(words: &[String]) -> (Vec<&str>, &[String]) {
    let mut verbs = Vec::new();
    let mut i = 0;
    if let Some(first) = words.first() {
        verbs.push(first.as_str());
        i = 1;
        while i + 1 < words.len() && matches!(words[i].as_str(), "or" | "and") {
            verbs.push(words[i + 1].as_str());
            i += 2;
        }
    }
    let rest = &words[i..];
    let end = rest
        .iter()
        .position(|w| is_preposition(w))
        .unwrap_or(rest.len());
    (verbs, &rest[..end])
}

/// Positions in `object` of its head nouns: the last word, and every word
/// before `and` / `or`.
fn head_positions(object: &[String]) -> Vec<usize> {
    let mut heads = Vec::new();
    for (i, w) in object.iter().enumerate() {
        if matches!(w.as_str(), "and" | "or") {
            continue;
        }
        let next = object.get(i + 1).map(String::as_str);
        if matches!(next, None | Some("and" | "or")) {
            heads.push(i);
        }
    }
    heads
}
