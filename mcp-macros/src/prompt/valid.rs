//! Checks only prompts have: arguments arrive as text, and completions name an argument.

use super::attr::PromptOptions;
use crate::diagnostics::Errors;
use crate::handler::HandlerFn;

pub(crate) fn check(prompt: &HandlerFn, options: &PromptOptions, errors: &mut Errors) {
    for param in prompt.arguments() {
        if let Some(default) = &param.options.default {
            errors.error(default, "prompt arguments arrive as text: make the parameter an `Option<T>` and use `.unwrap_or(...)` for a default");
        }
    }
    for (name, _) in &options.complete {
        if !prompt.arguments().any(|p| *name == p.wire_name()) {
            let arguments: Vec<String> = prompt.arguments().map(|p| p.wire_name()).collect();
            errors.error(
                name,
                format!("`{name}` is not an argument of this prompt; its arguments are: {}", arguments.join(", ")),
            );
        }
    }
}
