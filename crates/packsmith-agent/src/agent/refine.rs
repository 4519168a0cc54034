//! Refinement after success (evaluator → optimizer): the evaluator names
//! one improvement, the optimizer applies it, and the result must pass
//! every stage again or it is discarded and the passing recipe stands.

use crate::agent::{Run, Source, Stop, Tally};
use crate::events::{AgentEvent, CallPurpose};
use crate::history::AttemptKind;

impl Run<'_> {
    pub(crate) fn refine(&mut self) -> Result<(), Stop> {
        for round in 0..self.opts.refine_rounds {
            self.check_cancel()?;
            let Some(best) = self
                .records
                .iter()
                .rev()
                .find(|r| r.passed && !r.rolled_back)
                .map(|r| r.attempt)
            else {
                return Ok(());
            };
            let Some(recipe) = self.recipes.get(&best).cloned() else {
                return Ok(());
            };
            let Some(request) = self.eco.evaluate_request(self.task, &recipe, round) else {
                return Ok(());
            };
            let n = self.records.len() as u32 + 1;
            self.current = Tally::default();
            self.call_seq = 0;
            let feedback = self.call_model(n, &request, CallPurpose::Evaluate)?.content;
            let feedback = feedback.trim();
            if feedback.is_empty() || feedback.eq_ignore_ascii_case("none") {
                return self.emit(AgentEvent::Note {
                    message: "refinement: the evaluator proposed no improvement".into(),
                });
            }
            let Some(request) = self.eco.optimize_request(self.task, &recipe, feedback) else {
                return Ok(());
            };
            let source = Source::Ask {
                request,
                purpose: CallPurpose::Optimize,
                start: recipe,
            };
            let passed = self.attempt(n, AttemptKind::Refine, Some(best), source)?;
            if !passed {
                if let Some(last) = self.records.last_mut() {
                    last.rolled_back = true;
                }
                self.emit(AgentEvent::Note {
                    message: format!("refinement attempt {n} did not pass; attempt {best} stands"),
                })?;
            }
        }
        Ok(())
    }
}
