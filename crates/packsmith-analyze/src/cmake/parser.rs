//! Builds the block structure (if/elseif/else, loops, function and macro
//! bodies, block()) over the flat command list from the lexer.
//!
//! Mismatched block commands never fail: a stray `endif()` is reported and
//! ignored, and blocks still open at the end of a file are closed there.

use super::lexer::{Arg, Command, Problem};
use std::rc::Rc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchKind {
    If,
    ElseIf,
    Else,
}

#[derive(Debug, Clone)]
pub struct Branch {
    pub kind: BranchKind,
    /// The condition as written (empty for `else`).
    pub cond: Vec<Arg>,
    pub line: u32,
    pub body: Vec<Node>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    Foreach,
    While,
}

#[derive(Debug, Clone)]
pub enum Node {
    Command(Command),
    If(Vec<Branch>),
    Loop {
        kind: LoopKind,
        header: Command,
        body: Vec<Node>,
    },
    /// `function()` or `macro()`; the body is shared with the definition
    /// table so calls can be expanded later.
    Function {
        header: Command,
        is_macro: bool,
        body: Rc<Vec<Node>>,
    },
    Block {
        header: Command,
        body: Vec<Node>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    If,
    Foreach,
    While,
    Function,
    Macro,
    Block,
}

impl Kind {
    fn opener(self) -> &'static str {
        match self {
            Kind::If => "if",
            Kind::Foreach => "foreach",
            Kind::While => "while",
            Kind::Function => "function",
            Kind::Macro => "macro",
            Kind::Block => "block",
        }
    }
}

struct Frame {
    kind: Kind,
    header: Command,
    branches: Vec<Branch>,
    body: Vec<Node>,
}

impl Frame {
    fn body_mut(&mut self) -> &mut Vec<Node> {
        match self.branches.last_mut() {
            Some(b) => &mut b.body,
            None => &mut self.body,
        }
    }

    fn into_node(self) -> Node {
        let Frame {
            kind,
            header,
            branches,
            body,
        } = self;
        match kind {
            Kind::If => Node::If(branches),
            Kind::Foreach => Node::Loop {
                kind: LoopKind::Foreach,
                header,
                body,
            },
            Kind::While => Node::Loop {
                kind: LoopKind::While,
                header,
                body,
            },
            Kind::Function | Kind::Macro => Node::Function {
                header,
                is_macro: kind == Kind::Macro,
                body: Rc::new(body),
            },
            Kind::Block => Node::Block { header, body },
        }
    }
}

/// Blocks nested deeper than this end the file: real CMake files nest a
/// dozen levels, and the walk (and dropping the tree) recurse per level,
/// so a hostile file of 100 000 `if()`s would overflow the stack.
pub const MAX_NESTING: usize = 200;

/// Turns commands into a tree; structural problems go to `problems`.
pub fn parse(commands: Vec<Command>, problems: &mut Vec<Problem>) -> Vec<Node> {
    let mut root = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for cmd in commands {
        let open = match cmd.name.as_str() {
            "if" => Some(Kind::If),
            "foreach" => Some(Kind::Foreach),
            "while" => Some(Kind::While),
            "function" => Some(Kind::Function),
            "macro" => Some(Kind::Macro),
            "block" => Some(Kind::Block),
            _ => None,
        };
        if let Some(kind) = open {
            if stack.len() >= MAX_NESTING {
                problems.push(Problem {
                    line: cmd.line,
                    message: format!(
                        "blocks nested deeper than {MAX_NESTING} levels; the rest of the file is skipped"
                    ),
                });
                break;
            }
            let branches = if kind == Kind::If {
                vec![Branch {
                    kind: BranchKind::If,
                    cond: cmd.args.clone(),
                    line: cmd.line,
                    body: Vec::new(),
                }]
            } else {
                Vec::new()
            };
            stack.push(Frame {
                kind,
                header: cmd,
                branches,
                body: Vec::new(),
            });
            continue;
        }
        let close = match cmd.name.as_str() {
            "endif" => Some(Kind::If),
            "endforeach" => Some(Kind::Foreach),
            "endwhile" => Some(Kind::While),
            "endfunction" => Some(Kind::Function),
            "endmacro" => Some(Kind::Macro),
            "endblock" => Some(Kind::Block),
            _ => None,
        };
        if let Some(kind) = close {
            close_until(kind, &cmd, &mut stack, &mut root, problems);
            continue;
        }
        if cmd.name == "elseif" || cmd.name == "else" {
            match stack.last_mut() {
                Some(f) if f.kind == Kind::If => {
                    let kind = if cmd.name == "else" {
                        BranchKind::Else
                    } else {
                        BranchKind::ElseIf
                    };
                    f.branches.push(Branch {
                        kind,
                        cond: cmd.args,
                        line: cmd.line,
                        body: Vec::new(),
                    });
                }
                _ => problems.push(Problem {
                    line: cmd.line,
                    message: format!("`{}()` outside an if block; ignored", cmd.name),
                }),
            }
            continue;
        }
        push_node(Node::Command(cmd), &mut stack, &mut root);
    }
    while let Some(frame) = stack.pop() {
        problems.push(Problem {
            line: frame.header.line,
            message: format!(
                "`{}()` is never closed; block ends at end of file",
                frame.kind.opener()
            ),
        });
        push_node(frame.into_node(), &mut stack, &mut root);
    }
    root
}

fn push_node(node: Node, stack: &mut [Frame], root: &mut Vec<Node>) {
    match stack.last_mut() {
        Some(f) => f.body_mut().push(node),
        None => root.push(node),
    }
}

fn close_until(
    kind: Kind,
    cmd: &Command,
    stack: &mut Vec<Frame>,
    root: &mut Vec<Node>,
    problems: &mut Vec<Problem>,
) {
    let Some(at) = stack.iter().rposition(|f| f.kind == kind) else {
        problems.push(Problem {
            line: cmd.line,
            message: format!(
                "`{}()` without a matching `{}()`; ignored",
                cmd.name,
                kind.opener()
            ),
        });
        return;
    };
    while stack.len() > at {
        let Some(frame) = stack.pop() else { break };
        if stack.len() > at {
            problems.push(Problem {
                line: frame.header.line,
                message: format!(
                    "`{}()` is not closed before `{}()` at line {}",
                    frame.kind.opener(),
                    cmd.name,
                    cmd.line
                ),
            });
        }
        push_node(frame.into_node(), stack, root);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn tree(src: &str) -> (Vec<Node>, Vec<Problem>) {
        let l = lex(src);
        let mut p = l.problems;
        let nodes = parse(l.commands, &mut p);
        (nodes, p)
    }

    #[test]
    fn if_chain() {
        let (nodes, p) = tree("if(A)\nx()\nelseif(B)\nelse()\nif(C)\nendif()\nendif()\ny()");
        assert!(p.is_empty());
        assert_eq!(nodes.len(), 2);
        let Node::If(branches) = &nodes[0] else {
            panic!("not an if")
        };
        assert_eq!(branches.len(), 3);
        assert_eq!(branches[2].kind, BranchKind::Else);
        assert!(matches!(branches[2].body[0], Node::If(_)));
    }

    #[test]
    fn function_and_loop() {
        let (nodes, p) =
            tree("function(f a)\nforeach(x a b)\noption(O \"\" ON)\nendforeach()\nendfunction()");
        assert!(p.is_empty());
        let Node::Function { body, is_macro, .. } = &nodes[0] else {
            panic!("not a function")
        };
        assert!(!is_macro);
        assert!(matches!(body[0], Node::Loop { .. }));
    }

    #[test]
    fn deep_nesting_is_cut_without_overflowing_the_stack() {
        // Found by the fuzzer (packsmith-fuzz, target cmake-lexer): 75 000
        // unclosed `if()`s overflowed the stack.
        let (nodes, p) = tree(&"if(X)\n".repeat(100_000));
        assert_eq!(nodes.len(), 1);
        assert!(
            p.iter()
                .any(|p| p.message.contains("nested deeper than 200")),
            "{:?}",
            p.first()
        );
        let mut depth = 0;
        let mut node = &nodes[0];
        while let Node::If(b) = node {
            depth += 1;
            match b[0].body.first() {
                Some(n) => node = n,
                None => break,
            }
        }
        assert_eq!(depth, MAX_NESTING);
    }

    #[test]
    fn mismatched_blocks_are_reported() {
        let (nodes, p) = tree("endif()\nif(A)\nforeach(x)\nendif()\nif(B)\n");
        assert_eq!(p.len(), 3, "{p:?}");
        assert_eq!(nodes.len(), 2);
    }
}
