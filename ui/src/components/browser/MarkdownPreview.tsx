import { useMemo } from "react";
import { marked } from "marked";
import DOMPurify from "dompurify";
import { isTauri } from "../../lib/transport";

export function renderMarkdown(src: string): string {
  const html = marked.parse(src, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html);
}

export function MarkdownPreview({ source }: { source: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  return (
    <div
      className="preview markdown"
      data-testid="detail-preview"
      onClick={(e) => {
        // Never let a link navigate the app's own window away.
        const a = (e.target as HTMLElement).closest("a");
        if (!a) return;
        e.preventDefault();
        const href = a.getAttribute("href");
        if (href && !isTauri() && /^https?:/i.test(href)) window.open(href, "_blank", "noopener,noreferrer");
      }}
      dangerouslySetInnerHTML={{ __html: html || '<p class="muted">Nothing to preview.</p>' }}
    />
  );
}
