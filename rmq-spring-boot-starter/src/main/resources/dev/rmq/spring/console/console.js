// rmq console: refreshes the page's main part in place, and sends the controls' writes. No inline script runs
// (the Content-Security-Policy forbids it): this file is all there is.
(function () {
  'use strict';

  function meta(name) {
    var element = document.querySelector('meta[name="' + name + '"]');
    return element ? element.getAttribute('content') : null;
  }

  // the way back to the console's root, as the page's own stylesheet link spells it: relative, so that the console
  // works under any prefix a proxy adds
  function base() {
    var link = document.querySelector('link[rel="stylesheet"]');
    return link.getAttribute('href').replace('assets/console.css', '');
  }

  function status(text, failed) {
    var box = document.getElementById('rmq-status');
    box.textContent = text;
    box.className = failed ? 'failed' : 'done';
  }

  var busy = false;
  // the primary button held down on the page: redrawn under the pointer, its click would never fire
  var pressed = false;
  // the main part as last drawn, in the browser's own spelling: an answer that reads the same leaves the page's
  // elements as they are. The page came with it drawn.
  var loaded = document.getElementById('rmq-main');
  var drawn = loaded ? loaded.innerHTML : null;
  // refreshes asked for, and the latest whose answer was taken: an answer that comes after a newer one is dropped
  var asked = 0;
  var taken = 0;

  // whether to leave the page alone: while someone types into a field or picks from a list on it, holds the mouse
  // button down, or has selected text in it (a key to copy), or while a write is under way. Asked before a refresh
  // asks and again before it draws what came back.
  function inUse(main) {
    var active = document.activeElement;
    var selection = window.getSelection();
    return busy || pressed
      || (active && main.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName))
      || (selection && !selection.isCollapsed
        && (main.contains(selection.anchorNode) || main.contains(selection.focusNode)));
  }

  // the control in main that has focus, as a selector that finds it again in the redrawn part, so that someone
  // moving through the page with the keyboard keeps their place; null when focus is elsewhere
  function focusedPlace(main) {
    var active = document.activeElement;
    if (!active || active === main || !main.contains(active)) {
      return null;
    }
    if (active.matches('button.act')) {
      return 'button.act' + ['action', 'topic', 'key', 'slot', 'basis'].map(function (name) {
        var value = active.getAttribute('data-' + name);
        return value === null ? '' : '[data-' + name + '="' + CSS.escape(value) + '"]';
      }).join('');
    }
    var href = active.getAttribute('href');
    return href === null ? null : active.tagName.toLowerCase() + '[href="' + CSS.escape(href) + '"]';
  }

  function refresh() {
    var main = document.getElementById('rmq-main');
    if (document.hidden || inUse(main)) {
      return Promise.resolve();
    }
    var mine = ++asked;
    return fetch(window.location.href, { headers: { 'X-Rmq-Fragment': '1' }, credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) {
          throw new Error('the console answered ' + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        if (mine < taken || inUse(main)) {
          return;
        }
        taken = mine;
        var parsed = document.createElement('template');
        parsed.innerHTML = html;
        if (parsed.innerHTML !== drawn) {
          drawn = parsed.innerHTML;
          var place = focusedPlace(main);
          main.replaceChildren(parsed.content);
          var again = place && main.querySelector(place);
          if (again) {
            again.focus({ preventScroll: true });
          }
        }
        document.body.setAttribute('data-refreshed', String(Date.now()));
      })
      .catch(function (error) { status('Could not refresh: ' + error.message, true); });
  }

  function act(button) {
    var question = button.getAttribute('data-confirm');
    if (question && !window.confirm(question)) {
      return;
    }
    var body = {
      action: button.getAttribute('data-action'),
      topic: button.getAttribute('data-topic'),
      key: button.getAttribute('data-key'),
      slot: button.getAttribute('data-slot'),
      basis: button.getAttribute('data-basis') || ''
    };
    var at = button.parentElement.querySelector('input.at');
    if (at) {
      body.at = at.value;
    }
    var headers = { 'Content-Type': 'application/json', 'X-Rmq-Console': '1' };
    var csrfHeader = meta('rmq-csrf-header');
    if (csrfHeader) {
      headers[csrfHeader] = meta('rmq-csrf-token');
    }
    busy = true;
    fetch(base() + 'actions', { method: 'POST', headers: headers, body: JSON.stringify(body),
      credentials: 'same-origin' })
      .then(function (response) {
        return response.json().catch(function () { return { ok: false, message: 'answered ' + response.status }; });
      })
      .then(function (reply) { status(reply.message || reply.detail || 'answered without a reason', !reply.ok); })
      .catch(function (error) { status('Could not send: ' + error.message, true); })
      .then(function () { busy = false; return refresh(); });
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('button.act');
    if (button) {
      event.preventDefault();
      act(button);
    }
  });

  document.addEventListener('pointerdown', function (event) {
    pressed = event.isPrimary && event.button === 0;
  });
  // a release can go elsewhere: to a context menu, another window, a list's own popup
  ['pointerup', 'pointercancel', 'contextmenu', 'change'].forEach(function (name) {
    document.addEventListener(name, function () { pressed = false; });
  });
  window.addEventListener('blur', function () { pressed = false; });

  var every = parseInt(meta('rmq-refresh'), 10);
  if (every > 0) {
    window.setInterval(refresh, every);
  }
})();
