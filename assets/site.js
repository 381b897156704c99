// Site-wide behaviour that needs no server round trip:
// - every navigation scrolls to the top-left (SPEC §2);
// - detail carousels autoplay every data-autoplay-ms (5000), waiting while
//   the pointer is over them or the focus is in them, never on their own
//   under prefers-reduced-motion; they have previous/next and pause
//   buttons; swiping is native scroll snapping;
// - the folded account menu closes on Escape, outside clicks and actions;
// - when another tab signs in or out (the "user" record in local storage
//   changes), this tab reloads, so its websocket reconnects with the
//   browser's current session cookie;
// - the server's preview of a page's first screen (#vista-previa,
//   app/pages/preview.py) goes away as soon as the app shows its own
//   listings of the same path (data-vista-lista) or the 18+ notice, but
//   never during a press on it: a tap on its 18+ button is not lost; while
//   it shows, the app's start never scrolls the page from under the visitor;
//   its photos but the first show once its first frame is painted, so they
//   are not fetched beside the first, and a card's photos after its cover
//   on the visitor's first move (assets/styles.css);
// - the app's module script, which documents with a first screen bring as
//   text, starts once the first frame is painted, or, under a public page's
//   preview (data-app-on-interaction) for a visitor not signed in, on their
//   first move (pointer, touch, key, wheel, focus or scroll), which the
//   document's loader of this script notes (app/seo.py SITE_SCRIPT_LOADER:
//   such a document fetches this script once its first screen is painted);
// - a detail document counts its view and its preview's contact clicks with
//   beacons (data-count-url);
// - the scripts only some pages use (assets/proof.js for the sign-up's proof
//   of work, assets/clips.js for the wizard's clip upload) are fetched when
//   their markup first shows, not by every page, and assets/favourites.js
//   when the app starts;
// - the build's stylesheet, which documents with a first screen leave to
//   this script (app/seo.py split_shell), so that the first paint waits
//   only for the site's inline CSS, is fetched as media="print" when the
//   app starts, and applies once loaded and the preview leaves, in the same
//   frame: the preview is never restyled while it shows;
// - when the websocket drops while an event this page sent has had no
//   answer yet (its app node died mid-write), a Spanish alert says so at
//   once: Reflex reconnects silently and the event is lost;
// - in the listing wizard, a time typed into a day marked "No atiendo"
//   opens that day (marking it again clears its times), and photos chosen
//   disable "Guardar y seguir" at once, before the server hears of them.
(function () {
  "use strict";

  function addScript(src) {
    var script = document.createElement("script");
    script.src = src;
    document.head.appendChild(script);
  }

  // The app's module script, which documents with a first screen bring as text (app/seo.py
  // split_shell): it starts once a frame is painted, so that first screen never waits for the
  // app's scripts to download and run. Its text is the built one, whose hash the CSP names.
  // assets/favourites.js (the hearts, the account's favourites) starts with it.
  var appModule = document.querySelector("script[data-app-module]");
  if (!appModule) addScript("/favourites.js");
  // The build's stylesheet (its address is on the module script), fetched as print, which blocks
  // nothing, when the app starts: applied when the preview leaves (withStyles, below).
  var fetchStyles = function () {
    var href = appModule.getAttribute("data-stylesheet");
    if (!href || document.querySelector("link[data-media]")) return;
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.media = "print";
    link.setAttribute("data-media", "all");
    link.href = href;
    document.head.appendChild(link);
  };
  if (appModule) {
    var startApp = function () {
      if (!appModule.parentNode) return;
      fetchStyles();
      addScript("/favourites.js");
      var script = document.createElement("script");
      script.type = "module";
      script.textContent = appModule.textContent;
      appModule.replaceWith(script);
    };
    var waiting = document.querySelector("#vista-previa[data-app-on-interaction]");
    var known = false;  // a signed-in visitor (the app's "user" record) or a notice waiting for the next page
    try { known = !!(window.localStorage.getItem("user") || window.sessionStorage.getItem("aviso")); } catch (e) {}
    if (waiting && !known) {
      // A public page's preview already shows it, and its links work: the app starts on the visitor's
      // first move, so a phone that only looks never pays for the app's scripts. The document's loader of
      // this script notes that move, also one made before this script came (app/seo.py SITE_SCRIPT_LOADER).
      if (document.documentElement.hasAttribute("data-moved")) startApp();
      else document.addEventListener("visitor-moved", startApp, { once: true });
    } else {
      fetchStyles();
      requestAnimationFrame(function () { setTimeout(startApp, 0); });
      setTimeout(startApp, 1000);  // a tab opened in the background paints no frame until shown
    }
  }

  // A detail document counts its view, and its preview's contact clicks, itself (data-count-url, the
  // page's path and the kind in a small form): its app may never start. The app counts what it shows
  // too (app.states.public); a visitor counts once a day for each kind.
  var counting = document.querySelector("#vista-previa[data-count-url]");
  if (counting && navigator.sendBeacon) {
    var count = function (kind) {
      var form = new URLSearchParams({ ruta: window.location.pathname, tipo: kind });
      navigator.sendBeacon(counting.getAttribute("data-count-url"), form);
    };
    // The view is counted once the first frame is painted: it holds neither that frame nor its photo's
    // bandwidth (a tab opened in the background paints no frame until shown: counted a second later there).
    var viewed = false;
    var countView = function () {
      if (viewed) return;
      viewed = true;
      count(counting.getAttribute("data-count"));
    };
    requestAnimationFrame(function () { setTimeout(countView, 0); });
    setTimeout(countView, 1000);
    counting.addEventListener("click", function (event) {
      var contact = event.target.closest && event.target.closest("a[data-count]");
      if (contact) count(contact.getAttribute("data-count"));
    });
  }

  // The scripts only some pages use, each fetched once, when the markup it works on first shows.
  var onDemand = [["[data-proof-challenge]", "/proof.js"], ["[data-clip-upload]", "/clips.js"]];
  function loadNeeded() {
    onDemand = onDemand.filter(function (pair) {
      if (!document.querySelector(pair[0])) return true;
      addScript(pair[1]);
      return false;
    });
    return onDemand.length > 0;
  }
  if (loadNeeded()) {
    var looking = false;
    var needs = new MutationObserver(function () {
      if (looking) return;
      looking = true;
      requestAnimationFrame(function () {
        looking = false;
        if (!loadNeeded()) needs.disconnect();
      });
    });
    needs.observe(document.documentElement, { childList: true, subtree: true });
  }

  // Run ``then`` with the deferred stylesheets loaded and applied.
  function withStyles(then) {
    var deferred = Array.prototype.slice.call(document.querySelectorAll("link[data-media]"));
    var waiting = deferred.filter(function (link) { return !link.sheet; });
    var left = waiting.length;
    function apply() {
      deferred.forEach(function (link) { link.media = link.getAttribute("data-media"); });
      then();
    }
    if (!left) { apply(); return; }
    waiting.forEach(function (link) {
      function settled() { if (--left === 0) apply(); }
      link.addEventListener("load", settled, { once: true });
      link.addEventListener("error", settled, { once: true });
    });
  }

  var preview = document.getElementById("vista-previa");
  if (preview) {
    // Its photos but the first wait for its first frame (assets/styles.css): the first, the largest paint,
    // gets a phone's bandwidth first.
    requestAnimationFrame(function () {
      setTimeout(function () { preview.setAttribute("data-painted", ""); }, 0);
    });
    // While the preview is the page, its scroll is the visitor's: the router's reset of a new page
    // to the top (React Router's ScrollRestoration, at the app's first render) would move what is
    // under their finger, the 18+ button or a card, the moment their first scroll starts the app.
    var scrollTo = window.scrollTo;
    window.scrollTo = function () {
      if (preview.isConnected) return;
      return scrollTo.apply(window, arguments);
    };
    // The app's own listings of this very path (data-vista-lista holds the path it shows), or its notice.
    var ready = function () {
      var shown = '[data-is-root-theme] [data-vista-lista="' + CSS.escape(window.location.pathname) + '"]';
      return document.querySelector(shown + ", [data-is-root-theme] .age-gate");
    };
    // A press on the preview (its 18+ button) keeps it until the press ends and its click
    // has run: swapped between pointerdown and pointerup, the click would reach neither button.
    // Once its form is sent, the preview stays until the next document replaces it. A press that
    // began before this script ran (it comes once the first screen is painted) is the browser's :active state.
    var pressed = !!preview.querySelector(":active"), held = false, sent = false;
    var leave = function () {
      if (sent) return;
      if (pressed) { held = true; return; }
      withStyles(function () { preview.remove(); });
    };
    preview.addEventListener("pointerdown", function () { pressed = true; });
    preview.addEventListener("submit", function () { sent = true; });
    ["pointerup", "pointercancel"].forEach(function (name) {
      document.addEventListener(name, function () {
        if (!pressed) return;
        pressed = false;
        if (held) setTimeout(leave, 0);  // after the click this press makes
      }, true);
    });
    var watcher = new MutationObserver(function () {
      if (!ready()) return;
      watcher.disconnect();
      leave();
    });
    if (ready()) leave();
    else watcher.observe(document.body, { childList: true, subtree: true });
  } else {
    withStyles(function () {});
  }

  function toTop() { window.scrollTo(0, 0); }
  var push = history.pushState;
  history.pushState = function () {
    var result = push.apply(this, arguments);
    toTop();
    return result;
  };
  window.addEventListener("popstate", toTop);

  window.addEventListener("storage", function (event) {
    if (event.key === "user" && event.oldValue !== event.newValue) window.location.reload();
  });

  // The folded account menu (a <details>, app/components/layout.py): it closes once an action
  // is chosen, on a click elsewhere and on Escape (focus back on "Cuenta").
  function openMenus() { return document.querySelectorAll("details[data-account-menu][open]"); }
  document.addEventListener("click", function (event) {
    openMenus().forEach(function (menu) {
      var summary = menu.querySelector("summary");
      if (summary && summary.contains(event.target)) return;
      if (!menu.contains(event.target) || event.target.closest("a,button")) menu.open = false;
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    openMenus().forEach(function (menu) {
      menu.open = false;
      var summary = menu.querySelector("summary");
      if (summary && menu.contains(document.activeElement)) summary.focus();
    });
  });

  // A write in flight when the connection drops (issue 18 §2): Reflex sends each event over the
  // websocket and, if the socket closes before the answer, reconnects at once and never resends
  // it. Reflex's instrumentation hooks (window.__reflex_otel, read at each call, kept if present)
  // tell which events go out and when the socket drops; the socket's own messages tell which were
  // answered (any "event" packet: Reflex answers a page's events in order). The hydrate event of
  // a (re)connect is not the visitor's write: the count restarts once the socket connects.
  var WRITE_CUT = "Se cortó la conexión mientras guardábamos. Revisa si tu cambio quedó guardado y vuelve a intentarlo.";
  var unanswered = 0;
  var otel = window.__reflex_otel || {};
  function chained(name, own) {
    var theirs = otel[name];
    return function () {
      own.apply(this, arguments);
      if (typeof theirs === "function") return theirs.apply(this, arguments);
    };
  }
  function showWriteCut() {
    if (document.querySelector("[data-write-cut]")) return;
    var notice = document.createElement("div");
    notice.className = "write-cut";
    notice.setAttribute("role", "alert");
    notice.setAttribute("data-write-cut", "");
    var text = document.createElement("p");
    text.textContent = WRITE_CUT;
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "Cerrar aviso";
    close.addEventListener("click", function () { notice.remove(); });
    notice.append(text, close);
    document.body.append(notice);
  }
  window.__reflex_otel = Object.assign({}, otel, {
    onEventSend: chained("onEventSend", function () { unanswered += 1; }),
    onSocketConnect: chained("onSocketConnect", function () { unanswered = 0; }),
    onSocketDisconnect: chained("onSocketDisconnect", function () {
      if (unanswered) showWriteCut();
      unanswered = 0;
    }),
  });
  // A socket.io EVENT packet named "event" (engine.io message 4, socket.io event 2, optional namespace).
  var ANSWER = /^42(\/[^,]*,)?\d*\["event"/;
  // The accessor may sit on an ancestor's prototype (a subclassed WebSocket): it is overridden on
  // the class the page uses.
  var sockets = window.WebSocket && window.WebSocket.prototype;
  var onmessage;
  for (var proto = sockets; proto && !onmessage; proto = Object.getPrototypeOf(proto)) {
    onmessage = Object.getOwnPropertyDescriptor(proto, "onmessage");
  }
  if (onmessage && onmessage.set) {
    Object.defineProperty(sockets, "onmessage", {
      configurable: true,
      enumerable: onmessage.enumerable,
      get: onmessage.get,
      set: function (handler) {
        var watched = typeof handler !== "function" ? handler : function (message) {
          if (typeof message.data === "string" && ANSWER.test(message.data)) unanswered = 0;
          return handler.apply(this, arguments);
        };
        onmessage.set.call(this, watched);
      },
    });
  }

  // The wizard's week (app/pages/wizard.py, step 6): no typed hour is dropped without a word. A time
  // typed into a day marked "No atiendo" opens that day; marking a day "No atiendo" empties its times.
  function scheduleEdit(event) {
    var input = event.target;
    var row = input && input.closest && input.closest(".schedule-row");
    if (!row) return;
    var closed = row.querySelector("input[type=checkbox]");
    if (input.type === "time" && input.value && closed && closed.checked) closed.click();
    if (input === closed && closed.checked) {
      row.querySelectorAll("input[type=time]").forEach(function (time) { time.value = ""; });
    }
  }
  document.addEventListener("input", scheduleEdit, true);
  document.addEventListener("change", scheduleEdit, true);

  // Photos chosen in the wizard (step 7): "Guardar y seguir" is disabled in this very event, before
  // the upload's first progress event; the server's own flag (WizardState.uploading) keeps it so
  // until the photos are added, and the page enables it again then.
  function holdWizardSubmit(event) {
    var zone = event.target && event.target.closest && event.target.closest(".wizard-form .upload-zone");
    var files = event.type === "drop" ? event.dataTransfer && event.dataTransfer.files : event.target.files;
    if (!zone || !files || !files.length) return;
    zone.closest("form").querySelectorAll("button[type=submit]").forEach(function (button) {
      button.disabled = true;
    });
  }
  document.addEventListener("change", holdWizardSubmit, true);
  document.addEventListener("drop", holdWizardSubmit, true);

  var lastTouch = new WeakMap();
  // The slide a carousel's smooth scroll is on its way to: until the scroll ends (or the visitor
  // takes over), that is the current slide, so a "next" pressed mid-scroll goes one further.
  var heading = new WeakMap();
  var reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

  function slidesOf(track) { return track.querySelectorAll(".slide"); }

  function show(track, index) {
    var slides = slidesOf(track);
    if (!slides.length) return;
    var next = (index + slides.length) % slides.length;
    heading.set(track, next);
    track.scrollTo({
      left: slides[next].offsetLeft - track.offsetLeft,
      behavior: reducedMotion.matches ? "auto" : "smooth",
    });
    track.setAttribute("data-index", String(next));
  }

  function current(track) {
    var slides = slidesOf(track);
    if (heading.has(track)) return heading.get(track);
    if (!slides.length || !track.clientWidth) return 0;
    return Math.round(track.scrollLeft / track.clientWidth) % slides.length;
  }

  // "Pausar fotos" stops the autoplay until "Reanudar fotos"; the carousel's data-paused says
  // which label shows (assets/styles.css).
  document.addEventListener("click", function (event) {
    var pause = event.target.closest("[data-carousel-pause]");
    if (pause) {
      var box = pause.closest(".carousel");
      var track = box && box.querySelector("[data-carousel]");
      if (!track) return;
      if (box.hasAttribute("data-paused")) {
        box.removeAttribute("data-paused");
        track.setAttribute("data-started", String(Date.now()));
      } else {
        box.setAttribute("data-paused", "");
      }
      return;
    }
    var button = event.target.closest("[data-carousel-prev],[data-carousel-next]");
    if (!button) return;
    var track = button.parentElement.querySelector("[data-carousel]");
    if (!track) return;
    lastTouch.set(track, Date.now());
    show(track, current(track) + (button.hasAttribute("data-carousel-next") ? 1 : -1));
  });

  ["pointerdown", "touchstart", "wheel", "keydown"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var track = event.target.closest && event.target.closest("[data-carousel]");
      if (track) {
        lastTouch.set(track, Date.now());
        heading.delete(track);
      }
    }, { passive: true });
  });

  document.addEventListener("scroll", function (event) {
    var track = event.target;
    if (track && track.hasAttribute && track.hasAttribute("data-carousel")) {
      track.setAttribute("data-index", String(current(track)));
    }
  }, { capture: true, passive: true });

  // A smooth scroll of ours can end short of its slide: a layout change on the page in the middle
  // of it makes Chromium snap the track back to the slide it left. Unless the visitor took over
  // (which forgets the heading), the move finishes at once on the slide it was going to.
  document.addEventListener("scrollend", function (event) {
    var track = event.target;
    if (!(track && track.hasAttribute && track.hasAttribute("data-carousel"))) return;
    var target = heading.get(track);
    heading.delete(track);
    var slides = slidesOf(track);
    if (target !== undefined && slides[target] && track.clientWidth &&
        Math.round(track.scrollLeft / track.clientWidth) !== target) {
      track.scrollTo({ left: slides[target].offsetLeft - track.offsetLeft, behavior: "auto" });
    }
    track.setAttribute("data-index", String(current(track)));
  }, { capture: true, passive: true });

  // Autoplay waits while the pointer is over the carousel or the focus is in it (its pause
  // button aside, so "Reanudar" resumes at once), and starts paused under reduced motion.
  function holding(box) {
    var focused = document.activeElement;
    if (box.matches(":hover")) return true;
    return box.contains(focused) && !(focused.hasAttribute && focused.hasAttribute("data-carousel-pause"));
  }

  setInterval(function () {
    document.querySelectorAll("[data-carousel]").forEach(function (track) {
      var box = track.closest(".carousel") || track;
      var period = parseInt(track.getAttribute("data-autoplay-ms") || "5000", 10);
      var started = Number(track.getAttribute("data-started") || 0);
      var now = Date.now();
      if (!started) {
        track.setAttribute("data-started", String(now));
        if (reducedMotion.matches) box.setAttribute("data-paused", "");
        return;
      }
      if (box.hasAttribute("data-paused") || holding(box)) {
        track.setAttribute("data-started", String(now));
        return;
      }
      if (now - started < period) return;
      if (now - (lastTouch.get(track) || 0) < period) return;
      track.setAttribute("data-started", String(now));
      show(track, current(track) + 1);
    });
  }, 250);
})();

// Clips (app/components/clips.py): a player's poster is fetched only once the player comes near the screen.
// A poster in the page's markup is fetched at once, at the cover photo's priority, and costs a phone's first screen.
(function () {
  var WAITING = "video[data-poster]:not([poster])";
  function show(video) { video.setAttribute("poster", video.getAttribute("data-poster")); }
  var near = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) { show(entry.target); near.unobserve(entry.target); }
    });
  }, { rootMargin: "100px" }) : null;
  function watch(root) {
    root.querySelectorAll(WAITING).forEach(function (video) { near ? near.observe(video) : show(video); });
  }
  watch(document);
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) {
        if (node.nodeType !== 1) return;
        if (node.matches(WAITING)) { near ? near.observe(node) : show(node); } else { watch(node); }
      });
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
})();

// One <title>: the served document's (data-served, app/seo.py) gives way once the app renders its own, which React
// adds beside it rather than adopting it on a page whose title the app computes (a listing's detail).
(function () {
  function one() {
    if (!document.head.querySelector("title:not([data-served])")) return false;
    document.head.querySelectorAll("title[data-served]").forEach(function (title) { title.remove(); });
    return true;
  }
  if (one()) return;
  var watcher = new MutationObserver(function () { if (one()) watcher.disconnect(); });
  watcher.observe(document.head, { childList: true });
})();
