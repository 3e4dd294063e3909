// The definition editor: CodeMirror 6 with YAML, completion of keys from the definition's JSON
// Schema (GET /api/workloads/schema) and of table and column names from the target and the
// definition's DDL (nameCompletion), and the server's problems placed on their lines. It is loaded
// only with the Workloads page (a lazy route), so the other pages do not carry the editor.
import { autocompletion } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { useEffect, useRef } from "react";
import type { DefinitionProblem } from "@/lib/api/client";
import { problemDiagnostics } from "../api/diagnostics";
import { type KnownTable, nameCompletion } from "../api/nameCompletion";
import { schemaCompletion, type SchemaNode } from "../api/schemaCompletion";

export interface DefinitionEditorProps {
  value: string;
  onChange: (text: string) => void;
  problems: readonly DefinitionProblem[];
  schema: SchemaNode | null;
  /** The target database's tables, for completing table and column names (read when completing). */
  tables?: readonly KnownTable[];
}

export function DefinitionEditor({ value, onChange, problems, schema, tables = [] }: DefinitionEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const known = useRef(tables);
  known.current = tables;

  // One editor per schema; the text follows `value` below without rebuilding it.
  useEffect(() => {
    if (!host.current) return undefined;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: view.current?.state.doc.toString() ?? value,
        extensions: [
          lineNumbers(),
          lintGutter(),
          history(),
          indentOnInput(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle),
          yaml(),
          autocompletion({ override: [...(schema ? [schemaCompletion(schema)] : []), nameCompletion(() => known.current)] }),
          keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
          EditorView.contentAttributes.of({ "aria-label": "Workload definition (YAML)", "data-testid": "definition-text" }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
    // `value` seeds a new editor only; later values arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [schema]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (editor) editor.dispatch(setDiagnostics(editor.state, problemDiagnostics(editor.state.doc, problems)));
  }, [problems, schema]);

  return <div className="definition-editor" ref={host} data-testid="definition-editor" />;
}
