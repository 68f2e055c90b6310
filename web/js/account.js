// The account page (#/account): the password that signs in on any device,
// signing out here or everywhere, and the bot tokens (`GET /api/account`):
// several per account, each named, shown once when made, revocable. A bot
// token plays as the account and nothing more.

import { h, replace } from './dom.js';
import { t, lang } from './i18n.js';
import { accountRequest, passwordInput, signOut } from './lobby.js';

function passwordForm(account, status, reload) {
  const current = h('input', { id: 'ac-current', type: 'password', autocomplete: 'current-password', required: true, 'data-key': 'ac-current' });
  const next = passwordInput('ac-new', 'new-password');
  return h(
    'form',
    {
      class: 'row',
      'aria-label': t('ac.password-form'),
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const body = { password: next.value };
          if (account.password) body.current = current.value;
          await accountRequest('PUT', '/api/account/password', body);
          status.textContent = t('ac.password-set');
          reload();
        } catch (err) {
          status.textContent = err.message;
        }
      },
    },
    account.password ? [h('label', { for: 'ac-current' }, t('ac.current')), current] : null,
    h('label', { for: 'ac-new' }, t('ac.new-password')),
    next,
    h('button', { type: 'submit', 'data-key': 'ac-set' }, account.password ? t('ac.change') : t('ac.set')),
  );
}

function tokensSection(account, status, reload) {
  const name = h('input', { id: 'ac-token-name', maxlength: '32', required: true, placeholder: t('ac.token-name-hint'), 'data-key': 'ac-token-name' });
  const shown = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      class: 'row',
      'aria-label': t('ac.token-form'),
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const made = await accountRequest('POST', '/api/account/tokens', { name: name.value.trim() });
          name.value = '';
          reload(
            h(
              'div',
              { class: 'card notice', role: 'status' },
              h('p', {}, t('ac.token-once', { name: made.name })),
              h('input', { readonly: true, value: made.token, 'aria-label': t('ac.token-value', { name: made.name }), class: 'token', 'data-key': 'ac-token-value' }),
            ),
          );
        } catch (err) {
          status.textContent = err.message;
        }
      },
    },
    h('label', { for: 'ac-token-name' }, t('ac.token-name')),
    name,
    h('button', { type: 'submit', 'data-key': 'ac-token-make' }, t('ac.token-make')),
  );
  const list = account.tokens.length
    ? h(
        'ul',
        { class: 'tokens' },
        account.tokens.map((tk) =>
          h(
            'li',
            { class: 'row' },
            h('span', {}, t('ac.token-line', { name: tk.name, date: new Date(tk['created-at'] * 1000).toLocaleDateString(lang()) })),
            h(
              'button',
              {
                'aria-label': t('ac.revoke-label', { name: tk.name }),
                onclick: async () => {
                  try {
                    await accountRequest('DELETE', `/api/account/tokens/${tk.id}`);
                    status.textContent = t('ac.revoked', { name: tk.name });
                    reload();
                  } catch (err) {
                    status.textContent = err.message;
                  }
                },
              },
              t('ac.revoke'),
            ),
          ),
        ),
      )
    : h('p', { class: 'muted' }, t('ac.no-tokens'));
  return { form, list, shown };
}

export function mount(app) {
  const body = h('div', {}, h('p', { class: 'muted' }, t('shell.loading')));
  const status = h('p', { id: 'ac-status', role: 'status', class: 'muted' });
  const el = h('div', {}, h('h1', {}, t('ac.title')), status, body);
  const load = async (notice = null) => {
    try {
      const a = await accountRequest('GET', '/api/account');
      const tokens = tokensSection(a, status, load);
      replace(
        body,
        h('p', {}, t('ac.who', { name: a.name }), ' ', h('a', { href: `#/player/${encodeURIComponent(a.name)}` }, t('pf.my-profile'))),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'ac-pass-h' },
          h('h2', { id: 'ac-pass-h' }, t('ac.password')),
          h('p', { class: 'muted' }, a.password ? t('ac.password-help') : t('ac.no-password')),
          passwordForm(a, status, load),
        ),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'ac-sessions-h' },
          h('h2', { id: 'ac-sessions-h' }, t('ac.sessions')),
          h('p', { class: 'muted' }, t('ac.sessions-help', { n: a.sessions })),
          h(
            'div',
            { class: 'row' },
            h('button', { 'data-key': 'ac-signout', onclick: () => signOut(app, false).then(() => app.go('#/')) }, t('lobby.signout')),
            h('button', { 'data-key': 'ac-signout-all', onclick: () => signOut(app, true).then(() => app.go('#/')) }, t('ac.signout-everywhere')),
          ),
        ),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'ac-tokens-h' },
          h('h2', { id: 'ac-tokens-h' }, t('ac.tokens')),
          h('p', { class: 'muted' }, t('ac.tokens-help')),
          notice,
          tokens.list,
          tokens.form,
        ),
      );
    } catch (err) {
      replace(body, h('p', { role: 'alert' }, err.code === 'unauthorized' ? t('ac.signed-out') : err.message));
    }
  };
  load();
  return { el };
}
