// bootmark site: click a column header to sort its table. Numbers sort as numbers (the
// cell's data-value when set), text as text; the header's aria-sort says the order.
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
      function key(row) {
        var cell = row.cells[column];
        var text = cell.getAttribute("data-value") || cell.textContent.trim();
        var number = parseFloat(text);
        return isNaN(number) ? text : number;
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
