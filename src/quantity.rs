//! Kubernetes resource quantities (placeholder until the full module lands).

/// A resource quantity.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity(f64);

/// A string that is not a quantity.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid quantity {0:?}")]
pub struct QuantityError(String);

impl Quantity {
    /// Parses a quantity.
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        let err = || QuantityError(s.to_owned());
        let (num, mult) = [
            ("Ki", 1024f64),
            ("Mi", 1048576.0),
            ("Gi", 1073741824.0),
            ("m", 1e-3),
            ("k", 1e3),
            ("M", 1e6),
            ("G", 1e9),
        ]
        .iter()
        .find_map(|(suf, m)| s.strip_suffix(suf).map(|n| (n, *m)))
        .unwrap_or((s, 1.0));
        if num.is_empty()
            || !num
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        {
            return Err(err());
        }
        num.parse::<f64>()
            .map(|v| Self(v * mult))
            .map_err(|_| err())
    }
}

impl Quantity {
    /// Parses a JSON string or number (placeholder).
    pub fn from_json(v: &serde_json::Value) -> Result<Self, QuantityError> {
        match v {
            serde_json::Value::String(s) => Self::parse(s),
            serde_json::Value::Number(n) => Self::parse(&n.to_string()),
            other => Err(QuantityError(other.to_string())),
        }
    }
    /// Canonical form (placeholder).
    pub fn to_canonical_string(&self) -> String {
        self.0.to_string()
    }
}
