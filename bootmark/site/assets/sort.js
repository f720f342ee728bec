// bootmark site: click a column header to sort its table. A column whose header has the
// class "num" sorts by number (each cell's data-value, else its text); any other column
// sorts as text (a commit such as "6e3f..." is not a number). aria-sort says the order.
"use strict";
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (header, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = header.textContent;
    header.textContent = "";
    header.appendChild(button);
    button.addEventListener("click", function () {
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (other) { other.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var numeric = header.classList.contains("num");
      function key(row) {
        var cell = row.cells[column];
        var text = cell.getAttribute("data-value") || cell.textContent.trim();
        if (!numeric) { return text; }
        var number = parseFloat(text);
        return isNaN(number) ? -Infinity : number;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), order;
        if (typeof x === "number" && typeof y === "number") { order = x - y; }
        else { order = String(x).localeCompare(String(y)); }
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
