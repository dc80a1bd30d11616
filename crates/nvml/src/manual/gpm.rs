//! GPM metrics computed from two samples.

use nvml_sys as sys;

use crate::ffi;
use crate::{Error, GpmMetricId, GpmSample, Nvml};

/// One metric computed by [`Nvml::gpm_metrics_get`].
#[derive(Debug, Clone, PartialEq)]
pub struct GpmMetric {
    /// The metric asked for.
    pub id: GpmMetricId,
    /// The value, or this metric's own error.
    pub value: Result<f64, Error>,
    /// Short name, where the library defines one.
    pub short_name: Option<String>,
    /// Long name, where the library defines one.
    pub long_name: Option<String>,
    /// Unit, where the library defines one.
    pub unit: Option<String>,
}

impl Nvml {
    /// Computes `metrics` from two samples of the same device or MIG instance (`sample1`
    /// taken before `sample2`). Each metric carries its own result: one that the GPU does not
    /// support fails alone.
    ///
    /// Calls `nvmlGpmMetricsGet`, once per `NVML_GPM_METRIC_MAX` metrics.
    ///
    /// # Errors
    ///
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlGpmMetricsGet` (a driver older than the function)
    #[doc(alias = "nvmlGpmMetricsGet")]
    pub fn gpm_metrics_get(
        &self,
        sample1: &GpmSample<'_>,
        sample2: &GpmSample<'_>,
        metrics: &[GpmMetricId],
    ) -> Result<Vec<GpmMetric>, Error> {
        let sym = self.lib().nvmlGpmMetricsGet()?;
        let mut out = Vec::with_capacity(metrics.len());
        // The request is large (hundreds of slots): one boxed buffer for every chunk.
        let mut req: Box<sys::nvmlGpmMetricsGet_t> = Box::default();
        for chunk in metrics.chunks(req.metrics.len()) {
            req.version = sys::NVML_GPM_METRICS_GET_VERSION as _;
            req.numMetrics = chunk.len() as _;
            req.sample1 = sample1.raw;
            req.sample2 = sample2.raw;
            for (slot, id) in req.metrics.iter_mut().zip(chunk) {
                *slot = sys::nvmlGpmMetric_t { metricId: id.0, ..Default::default() };
            }
            ffi::check(call!(sym(&mut *req)))?;
            out.extend(req.metrics.iter().zip(chunk).map(|(m, id)| GpmMetric {
                id: *id,
                value: ffi::check(m.nvmlReturn).map(|()| m.value),
                short_name: ffi::library_string(m.metricInfo.shortName),
                long_name: ffi::library_string(m.metricInfo.longName),
                unit: ffi::library_string(m.metricInfo.unit),
            }));
        }
        Ok(out)
    }
}
