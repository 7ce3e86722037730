//! Calibration helpers: linear least squares and predicted-vs-measured speedups.
//!
//! The timing model's time for a kernel is, to first order, linear in its free
//! parameters once the simulation has counted what each one multiplies (wavefronts
//! through the pipe, dependent-load latencies, cycles of other work, ...): `time ≈ Σ θ_j
//! x_j`. [`fit`] finds the θ minimising the squared error over measured runs, and
//! [`speedups`] compares predicted and measured speedups of the variants of one kernel
//! against a reference variant, which is what the model has to get right (absolute
//! time also depends on global memory, which banksim does not model in detail).
//!
//! Not done yet (needs the GPU measurements): choosing the features from `banksim run
//! --cycles` output, the fitted h100 preset and its RON file, the PNG scatter plot.

/// Calibration could not be computed.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum CalibrateError {
    /// Rows of different lengths, or no rows.
    #[error("{what}")]
    Shape {
        /// What is wrong.
        what: String,
    },
    /// The features are linearly dependent on the rows given: the parameters are not
    /// determined by the data.
    #[error("the features are linearly dependent (column {column}): the measurements do not determine every parameter")]
    Singular {
        /// The first dependent column.
        column: usize,
    },
}

/// Least-squares θ for `rows` of (features x, measured y): minimises Σ (x·θ − y)².
/// Solved by Householder QR, so it is stable for badly scaled features.
pub fn fit(rows: &[(Vec<f64>, f64)]) -> Result<Vec<f64>, CalibrateError> {
    let n = rows
        .first()
        .map(|r| r.0.len())
        .ok_or_else(|| CalibrateError::Shape { what: "no measurements".into() })?;
    if rows.iter().any(|r| r.0.len() != n) {
        return Err(CalibrateError::Shape { what: "rows have different numbers of features".into() });
    }
    if rows.len() < n {
        return Err(CalibrateError::Shape {
            what: format!("{} measurements for {n} parameters", rows.len()),
        });
    }
    let m = rows.len();
    let mut a: Vec<Vec<f64>> = rows.iter().map(|r| r.0.clone()).collect();
    let mut b: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let scale = a.iter().flatten().fold(0.0f64, |s, v| s.max(v.abs())).max(1.0);
    for k in 0..n {
        let norm = (k..m).map(|i| a[i][k] * a[i][k]).sum::<f64>().sqrt();
        if norm <= 1e-12 * scale {
            return Err(CalibrateError::Singular { column: k });
        }
        let alpha = if a[k][k] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = (k..m).map(|i| a[i][k]).collect();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv > 0.0 {
            for j in k..n {
                let d: f64 = (k..m).map(|i| v[i - k] * a[i][j]).sum::<f64>() * 2.0 / vv;
                for (row, vi) in a[k..].iter_mut().zip(&v) {
                    row[j] -= d * vi;
                }
            }
            let d: f64 = (k..m).map(|i| v[i - k] * b[i]).sum::<f64>() * 2.0 / vv;
            for (bi, vi) in b[k..].iter_mut().zip(&v) {
                *bi -= d * vi;
            }
        }
    }
    let mut theta = vec![0.0; n];
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| a[k][j] * theta[j]).sum();
        theta[k] = (b[k] - s) / a[k][k];
    }
    Ok(theta)
}

/// Predicted time of features `x` under `theta`.
pub fn predict(theta: &[f64], x: &[f64]) -> f64 {
    theta.iter().zip(x).map(|(t, v)| t * v).sum()
}

/// One row of a speedup table.
#[derive(Clone, Debug, PartialEq)]
pub struct Speedup {
    /// The variant.
    pub variant: String,
    /// Measured time of the reference / measured time of the variant.
    pub measured: f64,
    /// The same ratio from the predictions.
    pub predicted: f64,
    /// predicted / measured − 1.
    pub error: f64,
}

/// Speedups of every variant relative to `reference`, from (name, measured, predicted)
/// times; None when the reference is missing or a time is not positive.
pub fn speedups(variants: &[(String, f64, f64)], reference: &str) -> Option<Vec<Speedup>> {
    let &(_, m0, p0) = variants.iter().find(|v| v.0 == reference)?;
    if variants.iter().any(|v| v.1 <= 0.0 || v.2 <= 0.0) {
        return None;
    }
    Some(
        variants
            .iter()
            .map(|(name, m, p)| {
                let (measured, predicted) = (m0 / m, p0 / p);
                Speedup { variant: name.clone(), measured, predicted, error: predicted / measured - 1.0 }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_parameters_from_noiseless_synthetic_runs() {
        // time = 27 * latency events + 2 * wavefronts + 0.5 * other cycles
        let truth = [27.0, 2.0, 0.5];
        let rows: Vec<(Vec<f64>, f64)> = (0..12)
            .map(|i| {
                let x =
                    vec![10.0 + i as f64, 100.0 * ((i * 7) % 5 + 1) as f64, 1000.0 * ((i * 3) % 4) as f64];
                let y = predict(&truth, &x);
                (x, y)
            })
            .collect();
        let theta = fit(&rows).unwrap();
        for (t, e) in theta.iter().zip(truth) {
            assert!((t - e).abs() < 1e-9, "{theta:?}");
        }
    }

    #[test]
    fn least_squares_with_noise_is_the_normal_equation_solution() {
        // y = a + b x with residuals: the closed-form regression line
        let pts = [(0.0, 1.0), (1.0, 2.9), (2.0, 5.2), (3.0, 6.8), (4.0, 9.1)];
        let rows: Vec<(Vec<f64>, f64)> = pts.iter().map(|&(x, y)| (vec![1.0, x], y)).collect();
        let theta = fit(&rows).unwrap();
        let n = pts.len() as f64;
        let (sx, sy) = (pts.iter().map(|p| p.0).sum::<f64>(), pts.iter().map(|p| p.1).sum::<f64>());
        let sxy = pts.iter().map(|p| p.0 * p.1).sum::<f64>();
        let sxx = pts.iter().map(|p| p.0 * p.0).sum::<f64>();
        let b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        let a = (sy - b * sx) / n;
        assert!((theta[0] - a).abs() < 1e-12 && (theta[1] - b).abs() < 1e-12, "{theta:?} vs {a} {b}");
    }

    #[test]
    fn dependent_features_and_bad_shapes_are_errors() {
        let rows = vec![(vec![1.0, 2.0], 1.0), (vec![2.0, 4.0], 2.0), (vec![3.0, 6.0], 3.0)];
        assert_eq!(fit(&rows), Err(CalibrateError::Singular { column: 1 }));
        assert!(matches!(fit(&[]), Err(CalibrateError::Shape { .. })));
        assert!(matches!(fit(&[(vec![1.0, 2.0], 1.0)]), Err(CalibrateError::Shape { .. })));
    }

    #[test]
    fn speedups_relative_to_reference() {
        let v = vec![("pad0".to_string(), 400.0, 420.0), ("pad1".to_string(), 100.0, 100.0)];
        let s = speedups(&v, "pad1").unwrap();
        assert_eq!(s[1].measured, 1.0);
        assert!((s[0].measured - 0.25).abs() < 1e-12);
        assert!((s[0].predicted - 100.0 / 420.0).abs() < 1e-12);
        assert!((s[0].error - (100.0 / 420.0 / 0.25 - 1.0)).abs() < 1e-12);
        assert!(speedups(&v, "pad2").is_none());
    }
}
