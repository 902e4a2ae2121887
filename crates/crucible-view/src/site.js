(function () {
  "use strict";
  var input = document.getElementById("filter");
  var note = document.getElementById("note");
  var tbody = document.querySelector("#sessions tbody");
  var pageRows = Array.prototype.slice.call(tbody.rows);
  var SHOWN = 500;

  function cell(tr, text, value) {
    var td = document.createElement("td");
    td.textContent = text;
    if (value !== undefined) td.setAttribute("data-value", String(value));
    tr.appendChild(td);
    return td;
  }
  function thousands(n) {
    return n > 0 ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : "";
  }
  function duration(ms) {
    if (!(ms > 0)) return "";
    var s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    // As the pages write it (crucible_core::figures::duration).
    if (h > 0) return h + "h " + m + "m " + (s % 60) + "s";
    if (m > 0) return m + "m " + (s % 60) + "s";
    return s + "s";
  }
  function row(s) {
    var tr = document.createElement("tr");
    var a = document.createElement("a");
    a.href = "s/" + encodeURIComponent(s.id) + ".html";
    a.textContent = s.id;
    cell(tr, "").appendChild(a);
    cell(tr, s.title);
    var status = document.createElement("span");
    status.className = "status status-" + s.status.replace(/[^a-z_]/g, "");
    status.textContent = s.status;
    cell(tr, "").appendChild(status);
    cell(tr, s.agents);
    cell(tr, s.project);
    cell(tr, s.started);
    cell(tr, duration(s.duration_ms), s.duration_ms);
    cell(tr, thousands(s.tokens), s.tokens);
    return tr;
  }
  function show(rows) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    rows.forEach(function (r) { tbody.appendChild(r); });
  }
  function apply() {
    var q = input.value.trim().toLowerCase();
    var words = q.split(/\s+/).filter(Boolean);
    if (words.length === 0) {
      show(pageRows);
      note.textContent = "";
    } else {
      var all = window.cruSessions || [];
      var found = all.filter(function (s) {
        var text = (s.id + " " + s.title + " " + s.status + " " + s.agents + " " + s.project).toLowerCase();
        return words.every(function (w) { return text.indexOf(w) >= 0; });
      });
      show(found.slice(0, SHOWN).map(row));
      note.textContent = found.length + " of " + all.length + " sessions match" +
        (found.length > SHOWN ? " (the newest " + SHOWN + " shown)" : "");
    }
    sortRows();
    var hash = q ? "#q=" + encodeURIComponent(input.value.trim()) : "";
    if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname);
  }
  // The filter as the address gives it: `+` is a space (a form-encoded
  // link), and text that is not valid percent-encoding is taken as it is
  // rather than throwing.
  function fromAddress(text) {
    var spaced = text.replace(/\+/g, " ");
    try {
      return decodeURIComponent(spaced);
    } catch (e) {
      return spaced;
    }
  }
  function fromHash() {
    var m = /^#q=(.*)$/.exec(location.hash);
    input.value = m ? fromAddress(m[1]) : "";
    apply();
  }
  // The column the table is sorted by, kept when the filter changes the
  // rows (else the header would show a sort the rows no longer have).
  var sorted = null;
  function sortRows() {
    if (!sorted) return;
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) {
      var x = a.cells[sorted.index], y = b.cells[sorted.index];
      var vx = x.getAttribute("data-value"), vy = y.getAttribute("data-value");
      var c = vx !== null && vy !== null ? Number(vx) - Number(vy)
        : x.textContent.localeCompare(y.textContent);
      return sorted.desc ? -c : c;
    });
    show(rows);
  }
  function sortBy(th) {
    var desc = th.classList.contains("sorted-asc");
    Array.prototype.forEach.call(th.parentNode.cells, function (c) {
      c.classList.remove("sorted-asc", "sorted-desc");
    });
    th.classList.add(desc ? "sorted-desc" : "sorted-asc");
    sorted = { index: th.cellIndex, desc: desc };
    sortRows();
  }
  input.addEventListener("input", apply);
  window.addEventListener("hashchange", fromHash);
  Array.prototype.forEach.call(document.querySelectorAll("#sessions th"), function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  fromHash();
})();
