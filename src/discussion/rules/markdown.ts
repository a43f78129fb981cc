/**
 * Markdown → HTML at write time: markdown-it with raw HTML disabled and links (and images)
 * restricted to http, https and mailto.
 */
import MarkdownIt from 'markdown-it';

const ALLOWED_SCHEMES = /^(https?|mailto):/i;

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.validateLink = (url: string) => ALLOWED_SCHEMES.test(url.trim());

// Links leave the site: no referrer, no follow for user-submitted links.
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'nofollow noopener');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** Rendered HTML, without the trailing newline markdown-it adds; '' for blank input. */
export function renderMarkdown(markdown: string): string {
  if (markdown.trim() === '') return '';
  return md.render(markdown).trim();
}
