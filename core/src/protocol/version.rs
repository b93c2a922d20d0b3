//! Protocol revisions, their era, and the feature gates derived from them.

use std::fmt;
use std::str::FromStr;

/// A revision of the MCP specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// The first public revision (HTTP+SSE transport).
    V2024_11_05,
    /// Streamable HTTP, batches, annotations, audio, completions capability.
    V2025_03_26,
    /// Structured tool output, elicitation, resource links, titles; batches removed.
    V2025_06_18,
    /// Icons, URL elicitation, sampling with tools; the last legacy revision.
    V2025_11_25,
    /// The stateless ("modern") revision. Known to the engine, served in a later release.
    V2026_07_28,
}

/// The two eras of the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize` handshake and sessions (2024-11-05 to 2025-11-25).
    Legacy,
    /// Stateless requests carrying their own protocol version (2026-07-28 on).
    Modern,
}

/// Features whose presence depends on the negotiated revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// JSON-RPC batches (2025-03-26 only).
    Batches,
    /// Tool annotations.
    ToolAnnotations,
    /// Audio content.
    AudioContent,
    /// The `completions` server capability.
    CompletionsCapability,
    /// `message` on progress notifications.
    ProgressMessage,
    /// `outputSchema` and `structuredContent`.
    StructuredOutput,
    /// `resource_link` content.
    ResourceLinks,
    /// `title` on tools, resources, prompts and implementations.
    Titles,
    /// `elicitation/create` (form mode).
    Elicitation,
    /// `_meta` on the definitions of tools, resources and prompts.
    DefinitionMeta,
    /// Icons on implementations, tools, resources and prompts.
    Icons,
    /// URL-mode elicitation and `notifications/elicitation/complete`.
    UrlElicitation,
    /// `tools` and `toolChoice` in sampling requests.
    SamplingTools,
    /// Invalid tool arguments reported as `isError` results instead of -32602.
    ToolInputErrorsAsResults,
    /// SSE priming events (an id and `retry`) and server-closed streams the client polls.
    SsePolling,
    /// The experimental tasks of 2025-11-25 (`capabilities.tasks`, `execution.taskSupport`,
    /// `params.task`, `tasks/get|result|list|cancel`); 2026-07-28 has the tasks extension.
    LegacyTasks,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The revisions that use the `initialize` handshake, oldest first.
    pub const LEGACY: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];
    /// The newest revision served over the legacy handshake.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The revision's date string.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The era this revision belongs to.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether `feature` exists in this revision.
    pub fn supports(self, feature: Feature) -> bool {
        use ProtocolVersion::*;
        match feature {
            Feature::Batches => self == V2025_03_26,
            Feature::ToolAnnotations
            | Feature::AudioContent
            | Feature::CompletionsCapability
            | Feature::ProgressMessage => self >= V2025_03_26,
            Feature::StructuredOutput
            | Feature::ResourceLinks
            | Feature::Titles
            | Feature::Elicitation
            | Feature::DefinitionMeta => self >= V2025_06_18,
            Feature::Icons
            | Feature::UrlElicitation
            | Feature::SamplingTools
            | Feature::ToolInputErrorsAsResults
            | Feature::SsePolling => self >= V2025_11_25,
            Feature::LegacyTasks => self == V2025_11_25,
        }
    }

    /// Picks the revision a legacy server answers `initialize` with: the requested one when
    /// it is a legacy revision the server speaks, otherwise the server's latest.
    pub fn negotiate(requested: &str, supported: &[ProtocolVersion]) -> ProtocolVersion {
        let latest = supported.iter().copied().filter(|v| v.era() == Era::Legacy).max();
        match requested.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Legacy && supported.contains(&v) => v,
            _ => latest.unwrap_or(Self::LATEST_LEGACY),
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| UnknownVersion(s.to_string()))
    }
}

/// A protocol version string this engine does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown protocol version {:?}", self.0)
    }
}

impl std::error::Error for UnknownVersion {}

impl serde::Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_supported_and_falls_back_to_latest() {
        let all = ProtocolVersion::LEGACY;
        for v in all {
            assert_eq!(ProtocolVersion::negotiate(v.as_str(), &all), v);
        }
        assert_eq!(ProtocolVersion::negotiate("1999-01-01", &all), ProtocolVersion::V2025_11_25);
        // The modern revision is not negotiated through initialize.
        assert_eq!(ProtocolVersion::negotiate("2026-07-28", &all), ProtocolVersion::V2025_11_25);
        let old = [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26];
        assert_eq!(ProtocolVersion::negotiate("2025-11-25", &old), ProtocolVersion::V2025_03_26);
    }

    #[test]
    fn gates() {
        use ProtocolVersion::*;
        assert!(V2025_03_26.supports(Feature::Batches));
        assert!(!V2025_06_18.supports(Feature::Batches));
        assert!(!V2024_11_05.supports(Feature::Batches));
        assert!(V2025_06_18.supports(Feature::StructuredOutput));
        assert!(!V2025_03_26.supports(Feature::StructuredOutput));
        assert!(V2025_11_25.supports(Feature::UrlElicitation));
        assert_eq!(V2026_07_28.era(), Era::Modern);
    }
}
