// The dashboard's charts (console.charts): each is drawn from the JSON the page carries beside its
// table, with Chart.js served by the app itself (console/package.json). Without it, the tables stay.
(function () {
  "use strict";
  var data = document.getElementById("console-charts");
  if (!data || typeof Chart === "undefined") { return; }
  var palette = ["#1d4ed8", "#b91c1c", "#047857", "#a16207", "#7c3aed", "#0e7490", "#be185d", "#4b5563", "#9ca3af"];
  JSON.parse(data.textContent).forEach(function (chart) {
    var canvas = document.getElementById("canvas-" + chart.key);
    if (!canvas) { return; }
    var names = Object.keys(chart.series);
    new Chart(canvas, {
      type: chart.kind,
      data: {
        labels: chart.labels,
        datasets: names.map(function (name, i) {
          var colour = palette[i % palette.length];
          return { label: name, data: chart.series[name], backgroundColor: colour, borderColor: colour, tension: 0 };
        })
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { legend: { display: names.length > 1, position: "bottom", labels: { boxWidth: 12 } } },
        scales: { x: { stacked: chart.stacked }, y: { stacked: chart.stacked, beginAtZero: true, ticks: { precision: 0 } } }
      }
    });
  });
})();
