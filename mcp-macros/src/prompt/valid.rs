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
    let arguments: Vec<String> = prompt.arguments().map(|p| format!("`{}`", p.wire_name())).collect();
    for (name, _) in &options.complete {
        if prompt.arguments().any(|p| *name == p.wire_name()) {
            continue;
        }
        let message = if arguments.is_empty() {
            format!("`{name}` is not an argument of this prompt, which takes none: remove `complete(...)`")
        } else {
            format!(
                "`{name}` is not an argument of this prompt: `complete(...)` names its arguments, here {}",
                arguments.join(", ")
            )
        };
        errors.error(name, message);
    }
}
