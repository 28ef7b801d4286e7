#pragma once
#include "guiWindows.h"
#include <string>
class CheckersGUI
{
public:
	template <typename T> void SetComputerColor(T) {}
	template <typename T> void DoGameMove(T) {}
	void ThinkingMenuActive(bool) {}
	void ShowErrorPopup(const char*) {}
	void get_eval_string(const Board&, std::string& evalstr) { evalstr = ""; }
};
extern CheckersGUI GUI;
