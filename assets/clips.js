// A clip chosen in the wizard's "Fotos y video" step (app/components/owner_clips.py) goes straight to the
// upload route (app/web/video_api.py): the file itself is the body of a POST to the input's data-clip-upload
// address, sent with the page's session cookie. An XMLHttpRequest, for its upload progress, drawn as a
// labelled <progress> with the percentage into [data-clip-progress]. On 201 the hidden [data-clip-uploaded]
// button asks the server to read the clips again; a refusal's Spanish message (JSON {"error": ...}) is
// written into [data-clip-error], a live region. A file chosen before this script ran is sent when it runs.
// Nothing inline (CSP); no framework needed.
(function () {
  "use strict";

  var NOT_SENT = "No pudimos enviar el video: revisa tu conexión e inténtalo de nuevo.";
  var sending = false;

  function find(attribute) {
    return document.querySelector("[" + attribute + "]");
  }

  function say(message) {
    var box = find("data-clip-error");
    if (box) box.textContent = message;
  }

  function showProgress(percent) {
    var box = find("data-clip-progress");
    if (!box) return;
    if (percent === null) {
      box.replaceChildren();
      return;
    }
    var bar = box.querySelector("progress");
    if (!bar) {
      var label = document.createElement("label");
      label.htmlFor = "clip-upload-progress";
      label.append("Subiendo video… ", document.createElement("span"), " %");
      bar = document.createElement("progress");
      bar.id = "clip-upload-progress";
      bar.max = 100;
      box.replaceChildren(label, bar);
    }
    bar.value = percent;
    box.querySelector("label span").textContent = String(percent);
  }

  function refusal(xhr) {
    try {
      var body = JSON.parse(xhr.responseText);
      if (body && typeof body.error === "string" && body.error) return body.error;
    } catch (ignored) {
      // Not JSON (a proxy's page): the generic message below.
    }
    return NOT_SENT;
  }

  function finish(input, xhr) {
    sending = false;
    input.disabled = false;
    input.value = "";
    showProgress(null);
    if (xhr.status === 201) {
      var button = find("data-clip-uploaded");
      if (button) button.click();
    } else {
      say(xhr.status ? refusal(xhr) : NOT_SENT);
    }
  }

  function send(input) {
    var file = input.files && input.files[0];
    var address = input.getAttribute("data-clip-upload");
    if (!file || !address || sending) return;
    sending = true;
    input.disabled = true;
    say("");
    showProgress(0);
    var xhr = new XMLHttpRequest();
    xhr.open("POST", address);
    xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    xhr.upload.onprogress = function (event) {
      if (event.lengthComputable && event.total > 0) showProgress(Math.floor((event.loaded * 100) / event.total));
    };
    xhr.onload = function () { finish(input, xhr); };
    xhr.onerror = function () { finish(input, xhr); };
    xhr.onabort = function () { finish(input, xhr); };
    xhr.send(file);
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input && input.matches && input.matches("input[data-clip-upload]")) send(input);
  });
  // This script arrives once the input shows (assets/site.js): a file chosen before then is sent now.
  var chosen = find("data-clip-upload");
  if (chosen && chosen.files && chosen.files.length) send(chosen);
})();
