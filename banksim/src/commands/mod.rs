//! The subcommands, one module each, named as the command: its clap arguments and its
//! `run`. A command that needs a Cargo feature this build lacks is a stub whose `run`
//! says which (`needs!`), one module at a time.

pub mod advise;
pub mod bench;
pub mod convert;
pub mod demo;
pub mod gen;
pub mod import;
pub mod merge;
pub mod presets;
pub mod probe;
pub mod run;
pub mod slurm;
pub mod stridebench;
pub mod sweep;

/// Declares each command module `$name` that needs the Cargo feature `$feature`: the
/// module itself where this build has the feature, else a stub whose arguments are
/// taken as they come ([`crate::args::Unavailable`]) and whose `run` says which feature
/// it needs.
macro_rules! needs {
    ($feature:literal: $($name:ident($args:ident, $what:literal)),* $(,)?) => {$(
        #[cfg(feature = $feature)]
        pub mod $name;
        #[cfg(not(feature = $feature))]
        pub mod $name {
            #[doc = concat!("Arguments of ", $what, " (not compiled in).")]
            pub type $args = crate::args::Unavailable;
            #[doc = concat!("Fails: ", $what, " needs the `", $feature, "` feature.")]
            pub fn run(_: &$args) -> anyhow::Result<()> {
                Err(crate::args::needs_feature($what, $feature))
            }
        }
    )*};
}

needs!("gpu":
    calibrate(CalibrateArgs, "`banksim calibrate`"),
    capture(CaptureArgs, "`banksim capture`"),
    explain(ExplainArgs, "`banksim explain`"),
    measure(MeasureArgs, "`banksim measure`"),
    predict(PredictArgs, "`banksim predict`"),
    shader_stats(ShaderStatsArgs, "`banksim shader-stats`"),
);
needs!("charts": report(ReportArgs, "`banksim report`"));
