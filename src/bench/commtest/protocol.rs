//! COMMTEST's 21 protocols (`shared/seeds/004_*.txt`) as data: for each,
//! the steps of one packet on processor 1 and on processor 2 (the same for
//! the unordered protocols). One interpreter (`program`) runs them all.
//!
//! The seed leaves out the handshakes that ready sends need "to save room".
//! Here a ready send is always preceded by [`Step::AwaitReady`], a zero-byte
//! message from its destination, which the destination sends
//! ([`Step::Signal`]) right after it posted the matching receive. (1,6)
//! "synchronous" uses the same handshake with a standard send: processor 1
//! sends only once processor 2's receive is posted, as the seed's table
//! shows (processor 2 receives, then processor 1 sends, then processor 2
//! replies and processor 1 receives).

use crate::comm::modes::Mode;

/// One step of a protocol, on one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// MPI_Irecv of the packet from the source.
    PostRecv,
    /// MPI_Isend of a zero-byte "ready" message to the source, if the source
    /// waits for one (its protocol has [`Step::AwaitReady`]).
    Signal,
    /// MPI_Recv of the zero-byte "ready" message from the destination.
    AwaitReady,
    /// A blocking send of the packet to the destination.
    Send(Mode),
    /// A nonblocking send of the packet to the destination.
    Isend(Mode),
    /// MPI_Recv of the packet from the source.
    Recv,
    /// MPI_Wait on the posted receive (and the ready message).
    WaitRecv,
    /// MPI_Wait on the nonblocking send.
    WaitSend,
    /// MPI_Waitall on the posted receive and the nonblocking send.
    WaitAll,
    /// MPI_Sendrecv: send to the destination, receive from the source.
    Sendrecv,
}

use Mode::{Buffered as B, Ready as R, Standard as S, Synchronous as Y};
use Step::*;

/// One protocol of the seed's table.
#[derive(Debug)]
pub struct Protocol {
    /// (0, j): unordered (ping-ping); (1, j): ordered (ping-pong).
    pub class: u8,
    pub index: u8,
    pub name: &'static str,
    /// Processor 1's steps per packet (both processors' when unordered).
    pub first: &'static [Step],
    /// Processor 2's steps per packet.
    pub second: &'static [Step],
}

impl Protocol {
    /// "(0,3)".
    pub fn code(&self) -> String {
        format!("({},{})", self.class, self.index)
    }

    /// The axis value: 100·i + j.
    pub fn number(&self) -> u16 {
        100 * u16::from(self.class) + u16::from(self.index)
    }

    pub fn ordered(&self) -> bool {
        self.class == 1
    }

    /// The steps of processor 1 (`first`) or 2.
    pub fn steps(&self, first: bool) -> &'static [Step] {
        if first {
            self.first
        } else {
            self.second
        }
    }

    /// Whether processor 1 (`first`) or 2 waits for ready messages.
    pub fn awaits(&self, first: bool) -> bool {
        self.steps(first).contains(&AwaitReady)
    }

    /// The MPI calls of one side, for `mpibench list` and the tables.
    pub fn calls(&self, first: bool) -> String {
        let mut v = Vec::new();
        for s in self.steps(first) {
            match s {
                PostRecv => v.push("MPI_IRECV"),
                Recv => v.push("MPI_RECV"),
                Send(m) => v.push(m.call()),
                Isend(m) => v.push(m.icall()),
                Sendrecv => v.push("MPI_SENDRECV"),
                Signal | AwaitReady | WaitRecv | WaitSend | WaitAll => {}
            }
        }
        v.join("/")
    }

    /// "MPI_IRECV/MPI_ISEND", or "P1 MPI_SEND/MPI_RECV, P2 MPI_RECV/MPI_SEND".
    pub fn summary(&self) -> String {
        if self.first == self.second {
            self.calls(true)
        } else {
            format!("P1 {}, P2 {}", self.calls(true), self.calls(false))
        }
    }
}

const fn unordered(index: u8, name: &'static str, steps: &'static [Step]) -> Protocol {
    Protocol {
        class: 0,
        index,
        name,
        first: steps,
        second: steps,
    }
}

const fn ordered(
    index: u8,
    name: &'static str,
    first: &'static [Step],
    second: &'static [Step],
) -> Protocol {
    Protocol {
        class: 1,
        index,
        name,
        first,
        second,
    }
}

/// Processor 2 of most ordered protocols: receive, then reply.
const RECV_SEND: &[Step] = &[Recv, Send(S)];
/// Processor 2 of the ordered synchronous-send protocols.
const RECV_SSEND: &[Step] = &[Recv, Send(Y)];
/// Processor 2 of the ready-send protocols: post, say ready, wait, then
/// reply with a ready send once processor 1 said it is ready.
const READY_REPLY: &[Step] = &[PostRecv, Signal, WaitRecv, AwaitReady, Send(R)];

/// The seed's table, in its order.
pub static PROTOCOLS: [Protocol; 21] = [
    unordered(0, "simple", &[Send(B), Recv]),
    unordered(1, "nonblocking send", &[Isend(S), Recv, WaitSend]),
    unordered(2, "nonblocking receive", &[PostRecv, Send(S), WaitRecv]),
    unordered(
        3,
        "nonblocking send and receive",
        &[PostRecv, Isend(S), WaitAll],
    ),
    unordered(
        4,
        "ready send",
        &[PostRecv, Signal, AwaitReady, Send(R), WaitRecv],
    ),
    unordered(
        5,
        "nonblocking ready send",
        &[PostRecv, Signal, AwaitReady, Isend(R), WaitAll],
    ),
    unordered(6, "native sendrecv", &[Sendrecv]),
    unordered(7, "nonblocking sync. send", &[Isend(Y), Recv, WaitSend]),
    unordered(
        8,
        "sync. send and nonblocking receive",
        &[PostRecv, Send(Y), WaitRecv],
    ),
    unordered(
        9,
        "nonblocking sync. send and receive",
        &[PostRecv, Isend(Y), WaitAll],
    ),
    ordered(0, "simple", &[Send(S), Recv], RECV_SEND),
    ordered(
        1,
        "nonblocking send",
        &[Isend(S), Recv, WaitSend],
        RECV_SEND,
    ),
    ordered(
        2,
        "nonblocking receive",
        &[PostRecv, Send(S), WaitRecv],
        RECV_SEND,
    ),
    ordered(
        3,
        "nonblocking send and receive",
        &[PostRecv, Isend(S), WaitAll],
        RECV_SEND,
    ),
    ordered(
        4,
        "ready send",
        &[PostRecv, Signal, AwaitReady, Send(R), WaitRecv],
        READY_REPLY,
    ),
    ordered(
        5,
        "nonblocking ready send",
        &[PostRecv, Signal, AwaitReady, Isend(R), WaitAll],
        READY_REPLY,
    ),
    ordered(
        6,
        "synchronous",
        &[AwaitReady, Send(S), Recv],
        &[PostRecv, Signal, WaitRecv, Send(S)],
    ),
    ordered(
        7,
        "nonblocking sync. send",
        &[Isend(Y), Recv, WaitSend],
        RECV_SSEND,
    ),
    ordered(
        8,
        "sync. send and nonblocking receive",
        &[PostRecv, Send(Y), WaitRecv],
        RECV_SSEND,
    ),
    ordered(
        9,
        "nonblocking sync. send and receive",
        &[PostRecv, Isend(Y), WaitAll],
        RECV_SSEND,
    ),
    ordered(10, "sync. send", &[Send(Y), Recv], RECV_SSEND),
];

/// The protocol of an axis value (100·i + j).
pub fn by_number(n: u16) -> Option<&'static Protocol> {
    PROTOCOLS.iter().find(|p| p.number() == n)
}

/// Codes of protocols (axis values 100·i + j), as `--protocols` gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Codes(pub Vec<u16>);

const KNOWN: &str = "known: (0,0) to (0,9) and (1,0) to (1,10)";

fn code(i: &str, j: &str, raw: &str) -> Result<u16, String> {
    let bad = || format!("unknown protocol code '{raw}' ({KNOWN})");
    let i: u16 = i.trim().parse().map_err(|_| bad())?;
    let j: u16 = j.trim().parse().map_err(|_| bad())?;
    let n = i
        .checked_mul(100)
        .and_then(|x| x.checked_add(j))
        .ok_or_else(bad)?;
    if j >= 100 || by_number(n).is_none() {
        return Err(bad());
    }
    Ok(n)
}

/// Parses a protocol list: codes as "(i,j)", "i.j" or "i:j", and the words
/// "all", "unordered", "ordered", separated by commas, semicolons or spaces.
pub fn parse_list(s: &str) -> Result<Codes, String> {
    let mut out: Vec<u16> = Vec::new();
    let mut rest = s.trim();
    let add = |v: &mut Vec<u16>, n: u16| {
        if !v.contains(&n) {
            v.push(n);
        }
    };
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ';', ' ']);
        if rest.is_empty() {
            break;
        }
        if let Some(body) = rest.strip_prefix('(') {
            let end = body
                .find(')')
                .ok_or_else(|| format!("unbalanced '(' in protocol list '{s}'"))?;
            let inner = &body[..end];
            let raw = &rest[..end + 2];
            let (i, j) = inner
                .split_once(',')
                .ok_or_else(|| format!("unknown protocol code '{raw}' ({KNOWN})"))?;
            add(&mut out, code(i, j, raw)?);
            rest = &body[end + 1..];
            continue;
        }
        let end = rest.find([',', ';', ' ']).unwrap_or(rest.len());
        let tok = &rest[..end];
        rest = &rest[end..];
        match tok.to_ascii_lowercase().as_str() {
            "all" => PROTOCOLS.iter().for_each(|p| add(&mut out, p.number())),
            "unordered" => PROTOCOLS
                .iter()
                .filter(|p| !p.ordered())
                .for_each(|p| add(&mut out, p.number())),
            "ordered" => PROTOCOLS
                .iter()
                .filter(|p| p.ordered())
                .for_each(|p| add(&mut out, p.number())),
            _ => {
                let (i, j) = tok
                    .split_once(['.', ':'])
                    .ok_or_else(|| format!("unknown protocol code '{tok}' ({KNOWN})"))?;
                add(&mut out, code(i, j, tok)?);
            }
        }
    }
    if out.is_empty() {
        return Err(format!("no protocol in '{s}' ({KNOWN})"));
    }
    Ok(Codes(out))
}

/// (code, description) of every protocol, for `mpibench list`.
pub static VARIANTS: std::sync::LazyLock<Vec<(&'static str, &'static str)>> =
    std::sync::LazyLock::new(|| {
        PROTOCOLS
            .iter()
            .map(|p| {
                let code: &'static str = Box::leak(p.code().into_boxed_str());
                let what: &'static str =
                    Box::leak(format!("{}: {}", p.name, p.summary()).into_boxed_str());
                (code, what)
            })
            .collect()
    });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_one_protocols_in_the_seeds_order() {
        let codes: Vec<String> = PROTOCOLS.iter().map(Protocol::code).collect();
        assert_eq!(codes.len(), 21);
        assert_eq!(codes[0], "(0,0)");
        assert_eq!(codes[9], "(0,9)");
        assert_eq!(codes[10], "(1,0)");
        assert_eq!(codes[20], "(1,10)");
        // Unordered protocols are symmetric; ordered ones are not.
        for p in &PROTOCOLS {
            assert_eq!(p.first == p.second, !p.ordered(), "{}", p.code());
        }
    }

    #[test]
    fn calls_are_the_seeds_table() {
        let calls = |n: u16| by_number(n).unwrap().summary();
        assert_eq!(calls(0), "MPI_BSEND/MPI_RECV");
        assert_eq!(calls(3), "MPI_IRECV/MPI_ISEND");
        assert_eq!(calls(4), "MPI_IRECV/MPI_RSEND");
        assert_eq!(calls(5), "MPI_IRECV/MPI_IRSEND");
        assert_eq!(calls(6), "MPI_SENDRECV");
        assert_eq!(calls(7), "MPI_ISSEND/MPI_RECV");
        assert_eq!(calls(9), "MPI_IRECV/MPI_ISSEND");
        assert_eq!(calls(100), "P1 MPI_SEND/MPI_RECV, P2 MPI_RECV/MPI_SEND");
        assert_eq!(calls(104), "P1 MPI_IRECV/MPI_RSEND, P2 MPI_IRECV/MPI_RSEND");
        assert_eq!(
            calls(105),
            "P1 MPI_IRECV/MPI_IRSEND, P2 MPI_IRECV/MPI_RSEND"
        );
        assert_eq!(calls(106), "P1 MPI_SEND/MPI_RECV, P2 MPI_IRECV/MPI_SEND");
        assert_eq!(calls(109), "P1 MPI_IRECV/MPI_ISSEND, P2 MPI_RECV/MPI_SSEND");
        assert_eq!(calls(110), "P1 MPI_SSEND/MPI_RECV, P2 MPI_RECV/MPI_SSEND");
    }

    /// Every ready send is preceded by a ready message, and every side whose
    /// source may wait for one posts its receive and signals before it
    /// completes the receive; every posted request is completed.
    #[test]
    fn handshakes_and_requests_are_consistent() {
        for p in &PROTOCOLS {
            for first in [true, false] {
                let s = p.steps(first);
                let pos = |x: Step| s.iter().position(|&y| y == x);
                for (i, st) in s.iter().enumerate() {
                    if matches!(st, Send(Mode::Ready) | Isend(Mode::Ready)) {
                        assert!(pos(AwaitReady).is_some_and(|a| a < i), "{}", p.code());
                    }
                }
                // A side whose source awaits ready messages must signal. The
                // source of processor 2 is processor 1; processor 1's source
                // is processor 2 (pairs, even cycles) or processor 2 only.
                let source_awaits = p.awaits(!first) || (!first && p.awaits(false));
                if source_awaits {
                    let (post, sig) = (pos(PostRecv), pos(Signal));
                    assert!(post.is_some() && sig > post, "{} first={first}", p.code());
                    let done = pos(WaitRecv).or(pos(WaitAll)).unwrap();
                    assert!(sig < Some(done));
                }
                let isends = s.iter().filter(|x| matches!(x, Isend(_))).count();
                let send_waits = s.iter().filter(|x| matches!(x, WaitSend | WaitAll)).count();
                assert_eq!(isends, send_waits, "{}", p.code());
                let posts = s.iter().filter(|x| matches!(x, PostRecv)).count();
                let recv_waits = s.iter().filter(|x| matches!(x, WaitRecv | WaitAll)).count();
                assert_eq!(posts, recv_waits, "{}", p.code());
                let receives = posts + s.iter().filter(|x| matches!(x, Recv | Sendrecv)).count();
                assert_eq!(receives, 1, "{} receives one packet", p.code());
            }
        }
    }

    #[test]
    fn lists_parse_codes_and_words() {
        assert_eq!(parse_list("(0,3),(1,0)").unwrap().0, vec![3, 100]);
        assert_eq!(parse_list("0.3, 1.10 ;1:6").unwrap().0, vec![3, 110, 106]);
        assert_eq!(parse_list("( 1 , 10 )").unwrap().0, vec![110]);
        assert_eq!(parse_list("all").unwrap().0.len(), 21);
        assert_eq!(parse_list("unordered").unwrap().0.len(), 10);
        assert_eq!(parse_list("ordered,(1,0)").unwrap().0.len(), 11);
        for bad in [
            "(2,0)", "(0,10)", "(1,11)", "x", "0", "(0,3", "", "(a,b)", "0.99999",
        ] {
            let e = parse_list(bad).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
            assert!(e.contains("protocol"), "{bad}: {e}");
        }
        assert!(parse_list("(2,0)")
            .unwrap_err()
            .contains("unknown protocol code '(2,0)'"));
    }
}
