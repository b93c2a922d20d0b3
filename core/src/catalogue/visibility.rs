//! Which components a caller sees: tags on tools, resources, templates and prompts, and
//! ordered enable/disable rules ([`Rules`]): the server's, then a caller's own on top. A
//! component that is not visible is left out of the lists and, called by name, is "not
//! found", exactly as if it did not exist.
//!
//! Rules apply in order and the last one that matches a component decides; a component no
//! rule matches is visible. `enable(filter, only = true)` is the allow-list form: it clears
//! earlier enables, puts "disable everything" first and enables what `filter` matches.

use super::ListKind;
use std::collections::BTreeSet;

/// A kind of component, as visibility rules name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Component {
    /// A tool, by name.
    Tool,
    /// A static resource, by URI.
    Resource,
    /// A resource template, by its URI template.
    Template,
    /// A prompt, by name.
    Prompt,
}

impl Component {
    /// Every kind.
    pub const ALL: [Component; 4] = [Component::Tool, Component::Resource, Component::Template, Component::Prompt];

    /// The kind's name: `tool`, `resource`, `template`, `prompt`.
    pub const fn name(self) -> &'static str {
        match self {
            Component::Tool => "tool",
            Component::Resource => "resource",
            Component::Template => "template",
            Component::Prompt => "prompt",
        }
    }

    /// The list the kind is served in.
    pub const fn list(self) -> ListKind {
        match self {
            Component::Tool => ListKind::Tools,
            Component::Resource => ListKind::Resources,
            Component::Template => ListKind::ResourceTemplates,
            Component::Prompt => ListKind::Prompts,
        }
    }
}

impl std::str::FromStr for Component {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Component::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown component kind {s:?} (one of tool, resource, template, prompt)"))
    }
}

/// What a rule applies to: the components that meet every criterion given (`names` and
/// `tags` narrow each other; a component matches `tags` when it has any of them), or every
/// component (`match_all`). A filter must give at least one criterion.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// Names of tools and prompts, URIs of resources, URI templates of templates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<BTreeSet<String>>,
    /// Tags, any of which matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeSet<String>>,
    /// The kinds of component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<BTreeSet<Component>>,
    /// Every component (given alone).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub match_all: bool,
}

impl Filter {
    /// Components with one of these names (or URIs).
    pub fn names<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Filter { names: Some(names.into_iter().map(Into::into).collect()), ..Filter::default() }
    }

    /// Components with any of these tags.
    pub fn tags<S: Into<String>>(tags: impl IntoIterator<Item = S>) -> Self {
        Filter { tags: Some(tags.into_iter().map(Into::into).collect()), ..Filter::default() }
    }

    /// Every component.
    pub fn all() -> Self {
        Filter { match_all: true, ..Filter::default() }
    }

    /// Narrows the filter to these kinds of component.
    pub fn of(mut self, components: impl IntoIterator<Item = Component>) -> Self {
        self.components = Some(components.into_iter().collect());
        self
    }

    /// Why the filter cannot be a rule: it gives no criterion, or `match_all` with others.
    pub fn check(&self) -> Result<(), String> {
        let criteria = self.names.is_some() || self.tags.is_some() || self.components.is_some();
        if self.match_all && criteria {
            return Err("match_all matches every component: give it without names, tags or components".into());
        }
        if !self.match_all && !criteria {
            return Err("a visibility rule needs names, tags, components or match_all".into());
        }
        Ok(())
    }

    /// Whether the filter matches component `kind` named `name` with `tags`.
    pub fn matches(&self, kind: Component, name: &str, tags: &[String]) -> bool {
        if self.match_all {
            return true;
        }
        self.components.as_ref().is_none_or(|c| c.contains(&kind))
            && self.names.as_ref().is_none_or(|n| n.contains(name))
            && self.tags.as_ref().is_none_or(|want| tags.iter().any(|t| want.contains(t)))
    }

    /// The lists the filter may touch.
    pub fn lists(&self) -> Vec<ListKind> {
        match &self.components {
            Some(c) if !self.match_all => c.iter().map(|k| k.list()).collect(),
            _ => ListKind::ALL.to_vec(),
        }
    }
}

/// One rule: enable or disable what a filter matches.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rule {
    /// Enable (`true`) or disable.
    pub enabled: bool,
    /// What it applies to.
    #[serde(flatten)]
    pub filter: Filter,
}

/// How many rules one set holds: a rule with the same filter as an earlier one replaces it,
/// so only a caller that makes ever new filters reaches this.
pub const MAX_RULES: usize = 256;

/// Ordered visibility rules; the last that matches a component decides.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Rules(Vec<Rule>);

impl Rules {
    /// No rules: everything visible.
    pub fn new() -> Self {
        Rules(Vec::new())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The rules, first to last.
    pub fn rules(&self) -> &[Rule] {
        &self.0
    }

    /// Adds `rule` last (it overrides the earlier ones where they overlap); an earlier rule
    /// with the same filter goes, as the new one decides for all it matched.
    pub fn push(&mut self, rule: Rule) -> Result<(), String> {
        rule.filter.check()?;
        self.0.retain(|r| r.filter != rule.filter);
        if self.0.len() >= MAX_RULES {
            return Err(format!("too many visibility rules (at most {MAX_RULES}): reset them, or use tags"));
        }
        self.0.push(rule);
        Ok(())
    }

    /// Enables what `filter` matches. `only`: the allow-list form, where nothing else is
    /// enabled (earlier enables are dropped; earlier disables stay, overridden by this one
    /// where they overlap).
    pub fn enable(&mut self, filter: Filter, only: bool) -> Result<(), String> {
        filter.check()?;
        if only {
            self.0.retain(|r| !r.enabled && !r.filter.match_all);
            self.0.insert(0, Rule { enabled: false, filter: Filter::all() });
        }
        self.push(Rule { enabled: true, filter })
    }

    /// Disables what `filter` matches.
    pub fn disable(&mut self, filter: Filter) -> Result<(), String> {
        self.push(Rule { enabled: false, filter })
    }

    /// Drops every rule.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// What the last rule that matches says of a component (`None`: no rule matches).
    pub fn verdict(&self, kind: Component, name: &str, tags: &[String]) -> Option<bool> {
        self.0.iter().rev().find(|r| r.filter.matches(kind, name, tags)).map(|r| r.enabled)
    }
}

/// A change of a caller's own rules (`ctx.enable_components`, `ctx.disable_components`,
/// `ctx.reset_visibility`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum VisibilityChange {
    /// Enable what the filter matches, for this caller.
    Enable(Filter),
    /// Disable what the filter matches, for this caller.
    Disable(Filter),
    /// Back to the server's rules.
    Reset,
}

impl VisibilityChange {
    /// `rules` after the change.
    pub fn apply(&self, rules: &Rules) -> Result<Rules, String> {
        let mut out = rules.clone();
        match self {
            VisibilityChange::Enable(f) => out.enable(f.clone(), false)?,
            VisibilityChange::Disable(f) => out.disable(f.clone())?,
            VisibilityChange::Reset => out.clear(),
        }
        Ok(out)
    }
}

/// The error of a per-caller change of visibility where nothing identifies the caller
/// from one request to the next (a stateless request without an authenticated caller):
/// changing what every client sees instead would be worse.
pub fn no_caller() -> crate::jsonrpc::RpcError {
    crate::jsonrpc::RpcError::invalid_request(
        "this request has no caller to change the view of: per-caller visibility needs a session \
         (a legacy HTTP session, or stdio) or an authenticated caller",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn later_rules_override() {
        let mut r = Rules::new();
        r.disable(Filter::tags(["admin"])).unwrap();
        assert_eq!(r.verdict(Component::Tool, "reset", &tags(&["admin"])), Some(false));
        assert_eq!(r.verdict(Component::Tool, "status", &[]), None);
        r.enable(Filter::names(["reset"]), false).unwrap();
        assert_eq!(r.verdict(Component::Tool, "reset", &tags(&["admin"])), Some(true));
        assert_eq!(r.verdict(Component::Tool, "wipe", &tags(&["admin"])), Some(false));
        // The same filter again replaces the old rule instead of piling up.
        r.disable(Filter::tags(["admin"])).unwrap();
        assert_eq!(r.rules().len(), 2);
        assert_eq!(r.verdict(Component::Tool, "reset", &tags(&["admin"])), Some(false));
    }

    #[test]
    fn criteria_narrow_each_other() {
        let f = Filter { tags: Some(["x".to_string()].into()), ..Filter::names(["a"]) };
        assert!(f.matches(Component::Tool, "a", &tags(&["x", "y"])));
        assert!(!f.matches(Component::Tool, "a", &[]));
        assert!(!f.matches(Component::Tool, "b", &tags(&["x"])));
        let tools = Filter::names(["config"]).of([Component::Tool]);
        assert!(tools.matches(Component::Tool, "config", &[]));
        assert!(!tools.matches(Component::Prompt, "config", &[]));
        assert_eq!(tools.lists(), [ListKind::Tools]);
        assert!(Filter::default().check().unwrap_err().contains("needs names"));
        assert!(Filter { match_all: true, ..Filter::names(["a"]) }.check().is_err());
        assert!(Rules::new().disable(Filter::default()).is_err());
    }

    #[test]
    fn allow_list_mode() {
        let mut r = Rules::new();
        r.enable(Filter::tags(["old"]), false).unwrap();
        r.disable(Filter::names(["api_admin"])).unwrap();
        r.enable(Filter::tags(["api"]), true).unwrap();
        assert_eq!(r.verdict(Component::Tool, "untagged", &[]), Some(false));
        assert_eq!(r.verdict(Component::Tool, "legacy", &tags(&["old"])), Some(false), "earlier enables dropped");
        assert_eq!(r.verdict(Component::Tool, "get", &tags(&["api"])), Some(true));
        r.disable(Filter::names(["api_admin"])).unwrap();
        assert_eq!(r.verdict(Component::Tool, "api_admin", &tags(&["api"])), Some(false));
        // A second allow-list replaces the first.
        r.enable(Filter::tags(["production"]), true).unwrap();
        assert_eq!(r.verdict(Component::Tool, "get", &tags(&["api"])), Some(false));
        assert_eq!(r.verdict(Component::Tool, "p", &tags(&["production"])), Some(true));
        assert_eq!(r.rules().iter().filter(|x| x.filter.match_all).count(), 1);
    }

    #[test]
    fn bounded_and_serializable() {
        let mut r = Rules::new();
        for i in 0..MAX_RULES {
            r.disable(Filter::names([format!("t{i}")])).unwrap();
        }
        assert!(r.disable(Filter::names(["one more"])).unwrap_err().contains("too many"));
        r.disable(Filter::names(["t3"])).unwrap();
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json[MAX_RULES - 1], serde_json::json!({"enabled": false, "names": ["t3"]}));
        assert_eq!(serde_json::from_value::<Rules>(json).unwrap(), r);
        let f: Filter = serde_json::from_value(serde_json::json!({"tags": ["a"], "components": ["tool"]})).unwrap();
        assert_eq!(f, Filter::tags(["a"]).of([Component::Tool]));
        assert!(serde_json::from_value::<Filter>(serde_json::json!({"tag": ["a"]})).is_err());
        assert!(serde_json::from_value::<Filter>(serde_json::json!({"components": ["widget"]})).is_err());
        let change: VisibilityChange = serde_json::from_value(serde_json::json!({"op": "reset"})).unwrap();
        assert_eq!(change.apply(&r).unwrap(), Rules::new());
    }
}
