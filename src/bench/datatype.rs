//! The element type and the derived datatype a run chooses for its
//! benchmarks (OSU's `-T` and `-D`; `mpibench run --datatype/--derived`).
//!
//! A benchmark is declared once with its own [`Info`]; a run that chooses
//! another element type or a derived layout re-declares it: rank 0 puts the
//! choice into the plan (reading an index file there), every rank resolves
//! the benchmarks by name and then asks each for itself over an `Info` with
//! the chosen `elem`, `datatype` and `derived` ([`retype`], leaked once per
//! run and benchmark). Kernels build the message from the `Info`
//! ([`Info::msg`], [`Msg::of`]) outside the timed region.
//!
//! OMB 7.4's definitions (c/util/osu_util.c, osu_util_mpi.c):
//! * `-T mpi_char|mpi_int|mpi_float|all`: sizes stay bytes; a size carries
//!   size / (type size) elements and sizes where that is 0 are skipped.
//! * `-D cont`: MPI_Type_contiguous(N) of the base type, sent as one element.
//! * `-D vect:STRIDE:BLOCK`: MPI_Type_vector(N / STRIDE blocks of BLOCK
//!   elements, STRIDE elements apart), one element; it transmits
//!   (N / STRIDE) · BLOCK elements.
//! * `-D indx:FILE`: MPI_Type_indexed over the file's lines
//!   `DISPLACEMENT,BLOCKLENGTH` (in elements of the base type; lines
//!   starting with `#` are comments), the same at every size; it transmits
//!   the sum of the block lengths.
//! * "Transmit Size" = elements transmitted × type size, in bytes.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::bench::entry::Entry;
pub use crate::comm::Derived;
use crate::comm::Elem;
use crate::contract::Info;

/// An element type a run can choose (OSU's -T; IMB's -data_type and
/// -red_data_type, which also name the types `--datatype` does not offer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Datatype {
    /// MPI_CHAR: byte-sized elements (transfers as MPI_BYTE, sums as MPI_UNSIGNED_CHAR).
    Char,
    /// MPI_INT.
    Int,
    /// MPI_FLOAT.
    Float,
    /// MPI_BYTE (IMB's `byte`).
    #[value(skip)]
    Byte,
    /// MPI_DOUBLE (IMB's `double`).
    #[value(skip)]
    Double,
    /// MPI_CHAR both ways, summed as MPI_CHAR (IMB's `char`).
    #[value(skip)]
    MpiChar,
}

impl Datatype {
    /// OMB's `-T all`.
    pub const ALL: [Datatype; 3] = [Datatype::Char, Datatype::Int, Datatype::Float];

    /// The name OSU prints (`# Datatype: MPI_INT.`) and rows carry.
    pub fn name(self) -> &'static str {
        match self {
            Datatype::Char => "MPI_CHAR",
            Datatype::Int => "MPI_INT",
            Datatype::Float => "MPI_FLOAT",
            Datatype::Byte => "MPI_BYTE",
            Datatype::Double => "MPI_DOUBLE",
            Datatype::MpiChar => "MPI_CHAR",
        }
    }

    /// The element type of a benchmark's messages under this datatype.
    pub fn elem(self, reduction: bool) -> Elem {
        match self {
            Datatype::Char if reduction => Elem::UChar,
            Datatype::Char => Elem::Byte,
            Datatype::Int => Elem::Int,
            Datatype::Float => Elem::Float,
            Datatype::Byte if reduction => Elem::UChar,
            Datatype::Byte => Elem::Byte,
            Datatype::Double => Elem::Double,
            Datatype::MpiChar => Elem::Char,
        }
    }

    /// IMB's `-data_type` (`reduction`: `-red_data_type`, which has no
    /// `byte`) value: byte, char, int, float, double.
    pub fn from_imb(v: &str, reduction: bool) -> Option<Datatype> {
        Some(match v {
            "byte" if !reduction => Datatype::Byte,
            "char" => Datatype::MpiChar,
            "int" => Datatype::Int,
            "float" => Datatype::Float,
            "double" => Datatype::Double,
            _ => return None,
        })
    }

    /// OSU's `-T` value (case-insensitive): one type, or the three of `all`.
    pub fn from_osu(v: &str) -> Option<Vec<Datatype>> {
        match v.to_ascii_lowercase().as_str() {
            "mpi_char" => Some(vec![Datatype::Char]),
            "mpi_int" => Some(vec![Datatype::Int]),
            "mpi_float" => Some(vec![Datatype::Float]),
            "all" => Some(Datatype::ALL.to_vec()),
            _ => None,
        }
    }
}

impl Derived {
    /// `cont`, `vect:STRIDE:BLOCK` or `indx:FILE` (the file is read here);
    /// `resized` and `resized_vect` (IMB's `-contig_type resize`, `resize_vec`).
    pub fn parse(spec: &str) -> Result<Derived, String> {
        let (kind, rest) = match spec.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (spec, None),
        };
        match (kind.to_ascii_lowercase().as_str(), rest) {
            ("cont", None) => Ok(Derived::Contiguous),
            ("resized", None) => Ok(Derived::Resized),
            ("resized_vect", None) => Ok(Derived::ResizedVector),
            ("vect", Some(r)) => {
                let bad = || {
                    format!("invalid derived datatype '{spec}' (vect:STRIDE:BLOCK, 1 <= BLOCK <= STRIDE)")
                };
                let (s, b) = r.split_once(':').ok_or_else(bad)?;
                let num = |t: &str| t.trim().parse::<usize>().ok().filter(|&n| n >= 1);
                let (stride, block) = (num(s).ok_or_else(bad)?, num(b).ok_or_else(bad)?);
                // A receive type whose blocks overlap is erroneous in MPI.
                if block > stride || stride > i32::MAX as usize {
                    return Err(bad());
                }
                Ok(Derived::Vector { stride, block })
            }
            ("indx", Some(path)) if !path.is_empty() => {
                let text = crate::input::read_text(
                    std::path::Path::new(path),
                    crate::input::LIST_CAP,
                    "the index file",
                    crate::input::Stdin::NotAllowed,
                )?;
                Derived::indexed(&text).map_err(|e| format!("index file '{path}': {e}"))
            }
            _ => Err(format!(
                "invalid derived datatype '{spec}' (cont, vect:STRIDE:BLOCK or indx:FILE)"
            )),
        }
    }

    /// An index file: one `DISPLACEMENT,BLOCKLENGTH` per line (elements),
    /// `#` comments and blank lines skipped.
    pub fn indexed(text: &str) -> Result<Derived, String> {
        let mut blocks = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || line.starts_with('#') {
                continue;
            }
            let num = |s: &str| {
                s.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n <= i32::MAX as usize)
            };
            let pair = t
                .split_once(',')
                .and_then(|(d, l)| Some((num(d)?, num(l)?)));
            let Some(b) = pair else {
                return Err(format!(
                    "line {}: '{t}' is not DISPLACEMENT,BLOCKLENGTH",
                    i + 1
                ));
            };
            blocks.push(b);
        }
        if blocks.is_empty() {
            return Err("no DISPLACEMENT,BLOCKLENGTH line".into());
        }
        Ok(Derived::Indexed { blocks })
    }

    /// As OSU spells it (`vect:8:4`); an index file by its block count.
    pub fn label(&self) -> String {
        match self {
            Derived::Contiguous => "cont".into(),
            Derived::Vector { stride, block } => format!("vect:{stride}:{block}"),
            Derived::Indexed { blocks } => format!("indx:{}", blocks.len()),
            Derived::Resized => "resized".into(),
            Derived::ResizedVector => "resized_vect".into(),
        }
    }
}

/// Benchmarks re-declared in this process: (key, benchmark), each leaked once.
static RETYPED: Mutex<Vec<(String, Entry)>> = Mutex::new(Vec::new());

/// The element types a run chooses: one for transfers, one for reductions
/// (OSU's -T: the same; IMB: -data_type and -red_data_type). `None`: the
/// benchmark's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Types {
    pub transfer: Option<Datatype>,
    pub reduction: Option<Datatype>,
}

impl Types {
    /// The type of a benchmark that reduces (`reduction`) or transfers.
    pub fn of(self, reduction: bool) -> Option<Datatype> {
        if reduction {
            self.reduction
        } else {
            self.transfer
        }
    }
}

/// A benchmark over the run's element types and derived datatype (`None`:
/// its own element type): a reduction takes `types.reduction`, any other
/// `types.transfer`. Every rank gets the same benchmark for the same
/// choice; it is re-declared once per process.
pub fn retype(e: Entry, types: Types, derived: Option<&Derived>) -> Result<Entry, String> {
    let Entry::Bench(b) = e else {
        return Err(format!(
            "{} measures the clocks: --datatype and --derived do not apply",
            e.qualified()
        ));
    };
    let base = b.info();
    let dt = types.of(base.reduction);
    let key = format!("{}|{dt:?}|{derived:?}", e.qualified());
    let mut cache = RETYPED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, hit)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(*hit);
    }
    let elem = dt.map_or(base.elem, |t| t.elem(base.reduction));
    if elem.size() > 1 && base.axis == super::Axis::Elems {
        return Err(format!("{} counts its own elements", e.qualified()));
    }
    let info: &'static Info = Box::leak(Box::new(Info {
        elem,
        datatype: dt.map(Datatype::name).or(base.datatype),
        derived: derived.map(|d| &*Box::leak(Box::new(d.clone()))),
        ..*base
    }));
    let Some(nb) = b.retyped(info) else {
        return Err(format!(
            "{} has a fixed element type: --datatype and --derived do not apply to it",
            e.qualified()
        ));
    };
    let entry = Entry::Bench(nb);
    cache.push((key, entry));
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Point;

    #[test]
    fn osu_type_names() {
        assert_eq!(Datatype::from_osu("MPI_INT"), Some(vec![Datatype::Int]));
        assert_eq!(Datatype::from_osu("mpi_float"), Some(vec![Datatype::Float]));
        assert_eq!(Datatype::from_osu("all").unwrap().len(), 3);
        assert_eq!(Datatype::from_osu("mpi_double"), None);
        assert_eq!(Datatype::Int.name(), "MPI_INT");
        assert_eq!(Datatype::Char.elem(true), Elem::UChar);
        assert_eq!(Datatype::Char.elem(false), Elem::Byte);
        assert_eq!(Datatype::Float.elem(true), Elem::Float);
    }

    #[test]
    fn imb_type_names() {
        assert_eq!(Datatype::from_imb("byte", false), Some(Datatype::Byte));
        assert_eq!(Datatype::from_imb("byte", true), None);
        assert_eq!(Datatype::from_imb("long", false), None);
        assert_eq!(Datatype::from_imb("char", true), Some(Datatype::MpiChar));
        assert_eq!(Datatype::MpiChar.elem(true), Elem::Char);
        assert_eq!(Datatype::MpiChar.name(), "MPI_CHAR");
        assert_eq!(Datatype::Double.elem(false), Elem::Double);
        assert_eq!(Datatype::Byte.elem(false), Elem::Byte);
        let t = Types {
            transfer: Some(Datatype::Int),
            reduction: Some(Datatype::Double),
        };
        assert_eq!((t.of(false), t.of(true)), (t.transfer, t.reduction));
    }

    #[test]
    fn resized_elements_lie_twice_apart() {
        for (spec, d) in [
            ("resized", Derived::Resized),
            ("resized_vect", Derived::ResizedVector),
        ] {
            assert_eq!(Derived::parse(spec).unwrap(), d);
            assert_eq!(d.label(), spec);
            // 16 elements: 16 transmitted, over 32 element slots.
            assert_eq!((d.transmit(16), d.span(16), d.stretch()), (16, 32, 2));
            assert!(d.ordered());
        }
        let info = Info {
            elem: Elem::Int,
            derived: Some(&Derived::Resized),
            ..Info::DEFAULT
        };
        assert_eq!((info.span(64), info.stretch()), (128, 2));
        assert!(Derived::Vector {
            stride: 1,
            block: 1
        }
        .ordered());
        assert!(!Derived::Vector {
            stride: 2,
            block: 1
        }
        .ordered());
        assert_eq!(Derived::Contiguous.stretch(), 1);
    }

    #[test]
    fn vector_is_omb_s() {
        let d = Derived::parse("vect:8:4").unwrap();
        assert_eq!(
            d,
            Derived::Vector {
                stride: 8,
                block: 4
            }
        );
        assert_eq!(d.label(), "vect:8:4");
        // 64 elements: 8 blocks of 4, 8 apart; 32 transmitted, 60 spanned.
        assert_eq!(d.transmit(64), 32);
        assert_eq!(d.span(64), 60);
        // Fewer elements than the stride: an empty type.
        assert_eq!((d.transmit(7), d.span(7)), (0, 0));
        assert_eq!(Derived::parse("cont").unwrap(), Derived::Contiguous);
        assert_eq!(Derived::Contiguous.transmit(10), 10);
        for bad in [
            "vect", "vect:8", "vect:0:1", "vect:4:8", "vect:x:1", "blah", "indx:", "cont:1",
        ] {
            let e = Derived::parse(bad).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn index_files_are_displacement_blocklength_lines() {
        let d = Derived::indexed("# displacement,block length\n0,2\n10, 3\n\n4,1\n").unwrap();
        assert_eq!(
            d,
            Derived::Indexed {
                blocks: vec![(0, 2), (10, 3), (4, 1)]
            }
        );
        assert_eq!(d.transmit(1), 6);
        assert_eq!(d.span(1), 13);
        assert_eq!(d.label(), "indx:3");
        assert!(Derived::indexed("0;2\n").unwrap_err().contains("line 1"));
        assert!(Derived::indexed("# nothing\n").is_err());
        assert!(Derived::indexed("-1,2\n").is_err());
        let e = Derived::parse("indx:/nonexistent/file").unwrap_err();
        assert!(e.contains("cannot read"), "{e}");
    }

    #[test]
    fn typed_points_skip_empty_sizes_and_carry_params() {
        let d = Derived::Vector {
            stride: 2,
            block: 1,
        };
        let info = Info {
            elem: Elem::Int,
            datatype: Some("MPI_INT"),
            derived: Some(Box::leak(Box::new(d))),
            ..Info::DEFAULT
        };
        assert_eq!(info.typed_point(Point::bytes(2)), None);
        let p = info.typed_point(Point::bytes(32)).unwrap();
        assert_eq!(p.str("datatype"), Some("MPI_INT"));
        assert_eq!(p.str("derived"), Some("vect:2:1"));
        // 8 ints: 4 blocks of 1 int.
        assert_eq!(p.u64("transmit_bytes"), Some(16));
        assert_eq!(info.span(32), 32);
        // A barrier has no size and stays.
        assert!(info.typed_point(Point::bytes(0)).is_some());
        assert_eq!(
            Info::DEFAULT.typed_point(Point::bytes(1)),
            Some(Point::bytes(1))
        );
    }
}
