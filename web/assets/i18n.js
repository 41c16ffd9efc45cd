// The page's words. t('English text', { name: value }) returns the text in the
// page's language with {name} placeholders filled in. Until the catalogs are
// built (po/*.po) every text is its English msgid.

export function t(msgid, params) {
  if (!params) return msgid;
  return msgid.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}
