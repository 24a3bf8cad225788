//! Whether a run limited in simulated time can carry its flows: the check a scenario makes
//! before it runs, so that a limit too short to finish is refused with the time the run needs
//! rather than reported as unfinished flows.

use rdma_cc_core::param::{format_rate, format_time};
use rdma_cc_core::wire;
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};

/// What a run carries, as the run-limit check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLoad {
    /// Per flow: its start plus the lower bound of its completion time.
    pub finish_bounds: Vec<Time>,
    /// Per flow: its payload.
    pub sizes: Vec<Bytes>,
    /// Per flow: its receiver, an index into [`Self::receiver_rates`].
    pub receivers: Vec<u32>,
    /// Per receiver: the rate of its link.
    pub receiver_rates: Vec<Rate>,
    /// Payload per data frame.
    pub mtu: Bytes,
    /// Bytes every data frame carries beyond its payload and headers (INT's hop records; 0
    /// without INT).
    pub extra: Bytes,
}

impl RunLoad {
    /// Checks that a run limited to `limit` of simulated time can carry its flows: the latest
    /// flow's finish bound, and for the busiest receiver the time its link takes to carry
    /// every flow to it one after the other (whole frames on the wire), must fit. The error
    /// names `--limit` and says how long the run needs and why (or `--rate` when a rate or
    /// the payload per frame is 0, `receiver` when a flow's receiver is out of range).
    pub fn check_limit(&self, limit: Time) -> Result<(), ConfigError> {
        let (mtu, extra) = (self.mtu.0, self.extra.0);
        let rates = &self.receiver_rates;
        if mtu == 0 || rates.contains(&Rate(0)) {
            return Err(ConfigError::new(
                "--rate",
                format_rate(rates.iter().copied().min().unwrap_or(Rate(0))),
                "the rate and the payload per frame must be > 0",
            ));
        }
        // per receiver: wire bytes, payload bytes and flows
        let mut load = vec![(0u128, 0u128, 0u64); rates.len()];
        for (&size, &r) in self.sizes.iter().zip(&self.receivers) {
            let Some(l) = load.get_mut(r as usize) else {
                return Err(ConfigError::new(
                    "receiver",
                    r.to_string(),
                    format!("must be < {} (the receivers' links)", rates.len()),
                ));
            };
            // full frames, and the shorter last one if any
            let frame = |payload: u64| wire::data_on_wire(Bytes(payload.saturating_add(extra))).0;
            let (full, last) = (size.0 / mtu, size.0 % mtu);
            l.0 = l.0.saturating_add(
                u128::from(full) * u128::from(frame(mtu))
                    + if last > 0 { u128::from(frame(last)) } else { 0 },
            );
            l.1 += u128::from(size.0);
            l.2 += 1;
        }
        let bound = self.finish_bounds.iter().map(|t| t.0).max().unwrap_or(0);
        // the busiest receiver: the longest its link takes for the frames to it
        let busiest = load
            .iter()
            .zip(rates)
            .map(|(l, &rate)| {
                let ns =
                    l.0.saturating_mul(8_000_000_000)
                        .div_ceil(u128::from(rate.0));
                (ns, l.1, l.2, rate)
            })
            .max_by_key(|b| b.0);
        let need = busiest.map_or(0, |b| b.0).max(u128::from(bound));
        if need <= u128::from(limit.0) {
            return Ok(());
        }
        let why = match busiest {
            Some((ns, payload, flows, rate)) if ns >= u128::from(bound) => format!(
                "{payload} B of payload in {flows} flow{} through the receiver's {} link",
                if flows == 1 { "" } else { "s" },
                format_rate(rate)
            ),
            _ => "the latest flow's start plus the lower bound of its completion time".to_owned(),
        };
        Err(ConfigError::new(
            "--limit",
            format_time(limit),
            format!(
                "the run needs at least {:.6} s of simulated time: {why}; raise --limit",
                need as f64 * 1e-9
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_flow(size: u64, extra: u64) -> RunLoad {
        RunLoad {
            finish_bounds: vec![Time::ZERO],
            sizes: vec![Bytes(size)],
            receivers: vec![0],
            receiver_rates: vec![Rate(8_000_000_000)],
            mtu: Bytes(1000),
            extra: Bytes(extra),
        }
    }

    #[test]
    fn the_busiest_receivers_wire_time_bounds_the_limit() {
        // 1000 B at 8 Gb/s (1 B/ns): one full frame of 1000 + headers on the wire
        let wire = wire::data_on_wire(Bytes(1000)).0;
        assert!(one_flow(1000, 0).check_limit(Time(wire)).is_ok());
        let e = one_flow(1000, 0).check_limit(Time(wire - 1)).unwrap_err();
        assert_eq!(e.field, "--limit");
        // INT's bytes make every frame longer
        let longer = wire::data_on_wire(Bytes(1042)).0;
        assert!(one_flow(1000, 42).check_limit(Time(longer - 1)).is_err());
        assert!(one_flow(1000, 42).check_limit(Time(longer)).is_ok());
        // a zero rate or an unknown receiver is named
        let mut z = one_flow(1000, 0);
        z.receiver_rates = vec![Rate(0)];
        assert_eq!(z.check_limit(Time(1)).unwrap_err().field, "--rate");
        let mut r = one_flow(1000, 0);
        r.receivers = vec![3];
        assert_eq!(r.check_limit(Time(1)).unwrap_err().field, "receiver");
    }
}
