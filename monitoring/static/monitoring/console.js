/* The console's page helpers: copy buttons beside shortened addresses, and the queue from the
   keyboard (j / k or the arrow keys move, Enter or o opens, / goes to the search box). */
(function () {
  "use strict";

  function copy(text, button) {
    var done = function () { button.textContent = "copied"; setTimeout(function () { button.textContent = "copy"; }, 1200); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {});
      return;
    }
    var area = document.createElement("textarea");
    area.value = text; document.body.appendChild(area); area.select();
    try { document.execCommand("copy"); done(); } finally { area.remove(); }
  }

  function queue() {
    var rows = Array.prototype.slice.call(document.querySelectorAll("#result_list tbody tr"));
    if (!rows.length) return;
    var current = -1;
    rows.forEach(function (row) { row.tabIndex = -1; });
    function focus(index) {
      current = Math.max(0, Math.min(rows.length - 1, index));
      rows.forEach(function (row) { row.classList.remove("kb-focus"); row.removeAttribute("aria-current"); });
      rows[current].classList.add("kb-focus");
      rows[current].setAttribute("aria-current", "true");
      rows[current].focus();
    }
    document.addEventListener("keydown", function (event) {
      var target = event.target, typing = target.matches && target.matches("input, select, textarea, [contenteditable]");
      if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "j" || event.key === "ArrowDown") { focus(current + 1); event.preventDefault(); }
      else if (event.key === "k" || event.key === "ArrowUp") { focus(current < 0 ? 0 : current - 1); event.preventDefault(); }
      else if ((event.key === "Enter" || event.key === "o") && current >= 0) {
        var link = rows[current].querySelector("th a, td a");
        if (link) { window.location.assign(link.href); event.preventDefault(); }
      } else if (event.key === "/") {
        var search = document.getElementById("searchbar");
        if (search) { search.focus(); event.preventDefault(); }
      }
    });
    rows.forEach(function (row, index) { row.addEventListener("focus", function () { if (current !== index) focus(index); }); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest(".copy-address");
      if (button) copy(button.dataset.copy, button);
    });
    if (document.body.classList.contains("change-list") && document.querySelector(".queue-keys")) queue();
  });
})();
