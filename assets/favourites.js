// The visitor's favourites (issue 19 §2), kept in this browser's local storage:
// - every heart (a button with data-favorita="<listing uid>", app/components/favourites.py) shows
//   with aria-pressed whether its listing is saved, and a press saves or removes it here, with no
//   request and no websocket message: the server never learns it;
// - only while a signed-in visitor keeps their favourites in the account does the page carry the
//   data-favoritas-cuenta button (app/states/favourites.py); a press then clicks it, and it sends the
//   list to the account;
// - the Favoritas page's list (data-favoritas-lista) is drawn from POST /favoritas/tarjetas, which
//   gives the public cards of the saved listings and says which are no longer public, naming those by
//   the name this device kept with each (a heart's data-favorita-nombre, when it was saved or last seen);
// - a list this device took from an account leaves with the account: once signed out (the "user"
//   record of app/states/auth.py is gone), the next person at this browser does not see it;
// - window.favoritas is what the account's handlers call (read the list, adopt the account's).
(function () {
  "use strict";
  // Once per document, even if the script element is inserted again (React renders the head too).
  if (window.favoritas) return;

  var KEY = "favoritas";
  // The name of each saved listing (uid: name), to name one that is no longer public.
  var NAMES_KEY = "favoritas_nombres";
  // The account this device's list was joined with (so an account's list replaces it only then).
  var OWNER_KEY = "favoritas_cuenta";
  var MAX = 200;
  var HEART = "[data-favorita]";
  var NAME = "data-favorita-nombre";
  var LIST = "[data-favoritas-lista]";
  var ACCOUNT = "[data-favoritas-cuenta]";
  // The presses since the server last read the list (listing uid: saved or removed). An account's list that
  // arrives after them does not know them: they are applied to it, and the result goes back to the account.
  var pressed = {};

  function read() {
    try {
      var value = JSON.parse(window.localStorage.getItem(KEY) || "[]");
      return Array.isArray(value) ? value.filter(function (uid) { return typeof uid === "string"; }) : [];
    } catch (error) {
      return [];
    }
  }

  function readNames() {
    try {
      var value = JSON.parse(window.localStorage.getItem(NAMES_KEY) || "{}");
      return value && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch (error) {
      return {};
    }
  }

  // The names of the saved listings alone.
  function namesOf(uids, names) {
    var kept = {};
    uids.forEach(function (uid) {
      if (Object.prototype.hasOwnProperty.call(names, uid) && typeof names[uid] === "string") kept[uid] = names[uid];
    });
    return kept;
  }

  function write(uids, names) {
    var list = uids.slice(0, MAX);
    window.localStorage.setItem(KEY, JSON.stringify(list));
    window.localStorage.setItem(NAMES_KEY, JSON.stringify(namesOf(list, names || readNames())));
  }

  // Signed out since this device joined an account's list: that list stays in the account only.
  function leaveAccount() {
    if (window.localStorage.getItem(OWNER_KEY) !== null && !window.localStorage.getItem("user")) {
      window.localStorage.removeItem(KEY);
      window.localStorage.removeItem(NAMES_KEY);
      window.localStorage.removeItem(OWNER_KEY);
    }
  }

  // Every heart on the page shows whether its listing is saved; the name of each saved one shown is kept.
  function mark() {
    leaveAccount();
    var saved = read();
    var names = readNames();
    var renamed = false;
    document.querySelectorAll(HEART).forEach(function (button) {
      var uid = button.getAttribute("data-favorita");
      var name = button.getAttribute(NAME);
      var pressed = saved.indexOf(uid) >= 0 ? "true" : "false";
      if (button.getAttribute("aria-pressed") !== pressed) button.setAttribute("aria-pressed", pressed);
      if (pressed === "true" && name && names[uid] !== name) {
        names[uid] = name;
        renamed = true;
      }
    });
    if (renamed) write(saved, names);
  }

  // The Favoritas page's list: the public cards of the saved listings, and those gone. Only the answer to
  // the latest request is drawn (an earlier one, for an older list, may arrive after it).
  var drawn = 0;
  function drawList(container) {
    var request = ++drawn;
    var ids = read();
    container.setAttribute("data-cargada", "");
    container.setAttribute("aria-busy", "true");
    fetch("/favoritas/tarjetas", {
      method: "POST",
      credentials: "omit",
      cache: "no-store",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ids: ids, names: namesOf(ids, readNames()) }),
    })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        if (request !== drawn) return;
        container.innerHTML = html;
        mark();
      })
      .catch(function () {
        if (request !== drawn) return;
        container.textContent = "No pudimos cargar tus favoritas. Recarga la página para intentarlo de nuevo.";
      })
      .finally(function () {
        if (request === drawn) container.removeAttribute("aria-busy");
      });
  }

  function drawLists(again) {
    document.querySelectorAll(LIST).forEach(function (container) {
      if (again || !container.hasAttribute("data-cargada")) drawList(container);
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(HEART);
    if (!button) return;
    event.preventDefault();
    var uid = button.getAttribute("data-favorita");
    var saved = read();
    var names = readNames();
    var at = saved.indexOf(uid);
    if (at >= 0) saved.splice(at, 1);
    else saved.unshift(uid);
    if (at < 0 && button.getAttribute(NAME)) names[uid] = button.getAttribute(NAME);
    pressed[uid] = at < 0;
    write(saved, names);
    mark();
    sendToAccount();
  });

  // While the list is kept in the account, the page carries its button: the device's list goes there.
  function sendToAccount() {
    var account = document.querySelector(ACCOUNT);
    if (account) account.click();
  }

  // Hearts and lists the app draws later (client-side navigation, a new page of cards).
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      mark();
      drawLists(false);
    });
  }).observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["data-favorita"],
  });

  // Another tab of this browser changed the list.
  window.addEventListener("storage", function (event) {
    if (event.key === KEY) mark();
  });

  window.favoritas = {
    // The device's list, sent to the account after a press.
    list: read,
    // The device's list, read for an answer that ends in adopt() (the switch turned on).
    reading: function () {
      pressed = {};
      return read();
    },
    // The device's list to merge into the account ``owner``, or null when it already is that account's copy.
    joining: function (owner) {
      pressed = {};
      return window.localStorage.getItem(OWNER_KEY) === owner ? null : read();
    },
    // The account's list becomes this device's, with the presses made since the server read the list
    // applied to it; those go back to the account.
    adopt: function (uids, owner) {
      var changed = Object.keys(pressed);
      var list = uids.filter(function (uid) { return pressed[uid] !== false; });
      changed.forEach(function (uid) {
        if (pressed[uid] && list.indexOf(uid) < 0) list.unshift(uid);
      });
      pressed = {};
      write(list);
      window.localStorage.setItem(OWNER_KEY, owner);
      mark();
      drawLists(true);
      if (changed.length) sendToAccount();
    },
    // The account no longer keeps the list: this device's copy stays, as its own.
    forget: function () {
      window.localStorage.removeItem(OWNER_KEY);
    },
  };

  mark();
  drawLists(false);
})();
