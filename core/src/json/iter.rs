//! The iterators over a [`Json`] object's members and an array's elements: each step
//! skips one value of the validated text (no grammar is checked again).

use super::skip_valid::{skip_valid, skip_valid_string_escaped};
use super::string::JsonStr;
use super::value::{Json, skip_ws};

/// Iterator over an object's members; see [`Json::members`].
#[derive(Clone)]
pub struct Members<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, Json<'a>);
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let ks = skip_ws(b, self.pos);
        if b.get(ks) != Some(&b'"') {
            self.pos = b.len();
            return None;
        }
        let (ke, escaped) = skip_valid_string_escaped(b, ks);
        let key_raw = self.text.get(ks + 1..ke - 1)?;
        let mut vs = ke;
        while matches!(b.get(vs), Some(b' ' | b'\n' | b'\r' | b'\t' | b':')) {
            vs += 1;
        }
        let ve = skip_valid(b, vs);
        self.pos = ve;
        let key = JsonStr {
            raw: key_raw,
            escaped,
        };
        Some((key, Json(self.text.get(vs..ve)?)))
    }
}

/// Iterator over an array's elements; see [`Json::elements`].
#[derive(Clone)]
pub struct Elements<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Json<'a>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let vs = skip_ws(b, self.pos);
        if matches!(b.get(vs), None | Some(b']')) {
            self.pos = b.len();
            return None;
        }
        let ve = skip_valid(b, vs);
        self.pos = ve;
        Some(Json(self.text.get(vs..ve)?))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn j(text: &str) -> Json<'_> {
        Json::new(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn raws<'a>(it: impl Iterator<Item = Json<'a>>) -> Vec<&'a str> {
        it.map(|v| v.as_raw()).collect()
    }

    #[test]
    fn members() {
        let v = j("{\n \"k1\" :\t\"v\" ,\"k\\\"2\":[ 1 ,2 ],\"k3\":{\"x\":{}} , \"k4\" : -0.5e1 }");
        let got: Vec<(&str, &str)> = v.members().map(|(k, v)| (k.raw(), v.as_raw())).collect();
        assert_eq!(
            got,
            [
                ("k1", "\"v\""),
                ("k\\\"2", "[ 1 ,2 ]"),
                ("k3", r#"{"x":{}}"#),
                ("k4", "-0.5e1")
            ]
        );
        assert!(v.members().nth(1).unwrap().0.eq_str("k\"2"));
        assert_eq!(j("{}").members().count(), 0);
        assert_eq!(j("{ }").members().count(), 0);
        assert_eq!(j("[1,2]").members().count(), 0);
        assert_eq!(j("\"ab\"").members().count(), 0);
        // The iterator is fused after its end.
        let mut m = j(r#"{"a":1}"#).members();
        assert!(m.next().is_some());
        assert!(m.next().is_none());
        assert!(m.next().is_none());
    }

    #[test]
    fn elements() {
        let v = j(r#"[1, "a,b]" ,[2,[3]] , {"x":[]},null,true , -2e-3,"\"]"]"#);
        assert_eq!(
            raws(v.elements()),
            [
                "1",
                "\"a,b]\"",
                "[2,[3]]",
                r#"{"x":[]}"#,
                "null",
                "true",
                "-2e-3",
                r#""\"]""#
            ]
        );
        assert_eq!(raws(j("[[],{}]").elements()), ["[]", "{}"]);
        assert_eq!(j("[]").elements().count(), 0);
        assert_eq!(j("[ \n ]").elements().count(), 0);
        assert_eq!(j(r#"{"a":1}"#).elements().count(), 0);
        assert_eq!(j("7").elements().count(), 0);
        let nested = j("[[1,2],[3]]");
        let inner: Vec<usize> = nested.elements().map(|e| e.elements().count()).collect();
        assert_eq!(inner, [2, 1]);
    }
}
