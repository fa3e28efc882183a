//! Go's `encoding/json` rule for which struct field a JSON key sets, shared
//! by every decoding that follows it (status items, member statuses, Lua
//! results).

/// The field of `fields` that the key `key` sets when Go decodes a struct:
/// the one named exactly `key`, else the first whose name matches it
/// ignoring ASCII case. `name` gives a field's JSON name.
///
/// Several keys can set one field (`clusterName` and `clusternamE`); Go
/// sets it once per key, in the order of the text, so the caller decides
/// in that order and the last key wins.
///
/// ```
/// use karmada_interpreter_core::api::go_json_field;
///
/// let fields = ["clusterName", "status"];
/// assert_eq!(go_json_field(&fields, |f| f, "STATUS"), Some(&"status"));
/// assert_eq!(go_json_field(&fields, |f| f, "cluster"), None);
/// ```
pub fn go_json_field<'a, T>(
    fields: &'a [T],
    name: impl Fn(&T) -> &str,
    key: &str,
) -> Option<&'a T> {
    fields
        .iter()
        .find(|f| name(f) == key)
        .or_else(|| fields.iter().find(|f| name(f).eq_ignore_ascii_case(key)))
}
