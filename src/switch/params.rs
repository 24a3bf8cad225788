//! The switch's and the RED/ECN policy's parameters ([`SwitchParams`], [`RedEcnParams`]):
//! their tables read and written by index, the examples' options, and the checks a scenario
//! asks for (`validate_options`), all in the Rust crates.

use super::{EcnLookup, NotEctMode, ParamInfo, ParamValue};
use crate::params::{self, from_ffi, infos, to_attr, to_options};
use rdma_cc_core::param::{ParamSpec, Params};
use rdma_cc_core::{Bytes, ConfigError, Rate};
use rdma_cc_rcm::RcmNodeConfig;
use rdma_cc_switch::mmu::PortLink;
use rdma_cc_switch::red::{EcnThresholds, NotEct, RedEcnConfig};

/// Opaque handle: one switch's [`RcmNodeConfig`] (the switch's own parameters, then RCM's).
pub struct SwitchParams(pub(super) RcmNodeConfig);

/// Opaque handle: one RED/ECN queue policy's [`RedEcnConfig`].
pub struct RedEcnParams(pub(super) RedEcnConfig);

/// The specs of [`RedEcnConfig`]'s table.
pub(crate) fn red_ecn_specs() -> Vec<&'static ParamSpec<'static>> {
    RedEcnConfig::params().iter().map(|p| &p.spec).collect()
}

pub(super) fn switch_attr(e: ConfigError) -> ConfigError {
    to_attr(e, &RcmNodeConfig::param_specs())
}

pub(super) fn red_attr(e: ConfigError) -> ConfigError {
    to_attr(e, &red_ecn_specs())
}

pub(super) fn switch_params_new() -> Box<SwitchParams> {
    Box::new(SwitchParams(RcmNodeConfig::default()))
}

pub(super) fn switch_param_specs() -> Vec<ParamInfo> {
    let d = RcmNodeConfig::default();
    infos(&RcmNodeConfig::param_specs(), |i| d.get(i))
}

pub(super) fn no_param(index: usize) -> ConfigError {
    ConfigError::new("parameter", index, "no such parameter")
}

impl SwitchParams {
    pub(super) fn set(&mut self, index: usize, v: &ParamValue) -> Result<(), ConfigError> {
        self.0.set(index, &from_ffi(v)?).map_err(switch_attr)
    }

    pub(super) fn get(&self, index: usize) -> Result<ParamValue, ConfigError> {
        params::get_param(self.0.get(index), index, no_param)
    }

    pub(super) fn set_option(&mut self, index: usize, text: &str) -> Result<(), ConfigError> {
        let specs = RcmNodeConfig::param_specs();
        params::set_option(
            &specs,
            index,
            text,
            no_param,
            |v| self.0.set(index, v),
            |e, spec| to_options(e, &specs, &[spec.option.to_string()]),
        )
    }

    pub(super) fn validate_options(
        &self,
        options: &[String],
        pfc_mask: u8,
        mmu_mtu: u64,
        egress_limit: u64,
        rates_bps: &[u64],
        delays_ns: &[u64],
    ) -> Result<(), ConfigError> {
        let links = PortLink::from_lists(rates_bps, delays_ns)?;
        self.0
            .check_on(pfc_mask, Bytes(mmu_mtu), Bytes(egress_limit), &links)
            .map_err(|e| to_options(e, &RcmNodeConfig::param_specs(), options))
    }

    pub(super) fn take(
        &mut self,
        from: &SwitchParams,
        indices: &[usize],
    ) -> Result<(), ConfigError> {
        for &i in indices {
            let v = from.0.get(i).ok_or_else(|| no_param(i))?;
            self.0.set(i, &v).map_err(switch_attr)?;
        }
        Ok(())
    }

    pub(super) fn buffer_size(&self) -> u64 {
        self.0.switch.mmu.buffer_size.0
    }

    pub(super) fn pfc_priorities(&self) -> u8 {
        self.0.switch.mmu.lossless_mask()
    }

    pub(super) fn voq(&self) -> bool {
        self.0.switch.voq
    }
}

pub(super) fn red_ecn_params_new() -> Box<RedEcnParams> {
    Box::new(RedEcnParams(RedEcnConfig::default()))
}

pub(super) fn red_ecn_param_specs() -> Vec<ParamInfo> {
    let d = RedEcnConfig::default();
    infos(&red_ecn_specs(), |i| d.get_param(i))
}

impl RedEcnParams {
    pub(super) fn set(&mut self, index: usize, v: &ParamValue) -> Result<(), ConfigError> {
        self.0.set_param(index, &from_ffi(v)?).map_err(red_attr)
    }

    pub(super) fn get(&self, index: usize) -> Result<ParamValue, ConfigError> {
        params::get_param(self.0.get_param(index), index, no_param)
    }

    pub(super) fn set_option(&mut self, index: usize, text: &str) -> Result<(), ConfigError> {
        let specs = red_ecn_specs();
        params::set_option(
            &specs,
            index,
            text,
            no_param,
            |v| self.0.set_param(index, v),
            |e, spec| to_options(e, &specs, &[spec.option.to_string()]),
        )
    }

    pub(super) fn validate_options(&self, options: &[String]) -> Result<(), ConfigError> {
        self.0
            .validate()
            .map_err(|e| to_options(e, &red_ecn_specs(), options))
    }

    pub(super) fn snapshot(&self) -> Box<RedEcnParams> {
        Box::new(RedEcnParams(self.0))
    }

    pub(super) fn lossless(&self) -> Box<RedEcnParams> {
        Box::new(RedEcnParams(
            <rdma_cc_switch::core::SwitchCore>::lossless_queue_policy(self.0),
        ))
    }

    pub(super) fn unmarked(&self) -> Box<RedEcnParams> {
        Box::new(RedEcnParams(
            <rdma_cc_switch::core::SwitchCore>::unmarked_queue_policy(self.0),
        ))
    }

    pub(super) fn set_ecn(&mut self, k_min: u64, k_max: u64, p_max: f64) {
        self.0.ecn = EcnThresholds {
            k_min: Bytes(k_min),
            k_max: Bytes(k_max),
            p_max,
        };
    }

    pub(super) fn set_not_ect(&mut self, mode: NotEctMode, k_fs: u64) -> Result<(), ConfigError> {
        self.0.not_ect = NotEct::from_index(mode.repr)?;
        self.0.k_fs = Bytes(k_fs);
        Ok(())
    }

    pub(super) fn set_buf_max(&mut self, buf_max: u64) {
        self.0.buf_max = Bytes(buf_max);
    }

    pub(super) fn k_min(&self) -> u64 {
        self.0.ecn.k_min.0
    }

    pub(super) fn buf_max(&self) -> u64 {
        self.0.buf_max.0
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        self.0.validate().map_err(red_attr)
    }
}

pub(super) fn ecn_map_lookup(map: &str, rate_bps: u64) -> Result<EcnLookup, ConfigError> {
    let m = rdma_cc_switch::red::SpeedMap::parse(map)?;
    Ok(match m.lookup(Rate(rate_bps)) {
        Some(t) => EcnLookup {
            found: true,
            k_min: t.k_min.0,
            k_max: t.k_max.0,
            p_max: t.p_max,
        },
        None => EcnLookup {
            found: false,
            k_min: 0,
            k_max: 0,
            p_max: 0.0,
        },
    })
}
